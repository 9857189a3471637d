export { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes.js';
export { ToolgateError, errorBody, type ErrorBody } from './error.js';
export type { ErrorData, ErrorDataByCode, ErrorDataOf } from './error-data.js';
export { canonicalJson, digestOf, sha256Hex, hmacSha256, constantTimeEqual, type Digest } from './canonical.js';
export { newTaskId, newAttemptId, ID_PATTERN, type TaskId, type AttemptId, type ReceiptId, type LogicalEffectId } from './ids.js';
export { jsonPointer, escapePointerToken, unescapePointerToken, pointerTokens } from './pointer.js';
export {
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  RUNTIME_OWNED_FIELDS,
  parseEnvelope,
  faultsOf,
  type Envelope,
  type Fault,
} from './envelope.js';
export {
  EFFECT_CLASSES,
  IRREVERSIBLE_EFFECTS,
  OPEN_WORLD_EFFECTS,
  effectRank,
  approvalView,
  type EffectClass,
  type Resource,
  type ProgramResource,
  type PathAccess,
  type NormalizedAction,
  type Decision,
  type DecisionOutcome,
} from './action.js';
export {
  CALL_STATUSES,
  receiptDigest,
  sealReceipt,
  sealCanonical,
  unsealCanonical,
  receiptIdOf,
  legacyReceiptIdOf,
  receiptIdMatches,
  bodyOf,
  receiptSkeleton,
  type CallStatus,
  type Receipt,
  type ReceiptBody,
  type ArtifactRef,
  type RedactionNote,
  type PartialEffect,
  type BoundValue,
  type RuntimeChange,
  type HostToolRecord,
} from './receipt.js';
export { echoString, echoValue, boundStrings, wellFormed, ECHO_MAX_CHARS, ERROR_STRING_MAX_CHARS, MAX_FAULTS } from './echo.js';
export { TOOLGATE_VERSION } from './version.js';
export { PROFILE_ORIGIN_KIND, profileOriginSchema, type ProfileOrigin } from './origin.js';
export { CallAborted, abortKindOf, type AbortKind } from './abort.js';
export { StartupError, isStartupErrorCode } from './startup-error.js';
export { STARTUP_ERROR_CODES, type StartupErrorCode, type StartupErrorDataByCode, type PolicyFault } from './startup-error-data.js';
export { FAILPOINTS, FAILPOINT_ENV, failpoint, type Failpoint } from './failpoint.js';
