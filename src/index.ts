// The package's public surface: every export here is a decision (no `export *`).

// Running calls
export { createRuntime, Runtime, type RuntimeOptions, type CallOptions, type ReconcileReport, type ReconcileEntry, type UnsettledEntry } from './runtime/index.js';

// The protocol: envelopes, receipts, errors
export {
  PROTOCOL_VERSION,
  ERROR_CODES,
  CALL_STATUSES,
  EFFECT_CLASSES,
  ToolgateError,
  parseEnvelope,
  canonicalJson,
  digestOf,
  type ErrorCode,
  type ErrorBody,
  type Envelope,
  type Receipt,
  type CallStatus,
  type EffectClass,
  type NormalizedAction,
  type Resource,
  type Decision,
  type ArtifactRef,
  type Digest,
  type TaskId,
  type ReceiptId,
  CallAborted,
  abortKindOf,
  type AbortKind,
} from './protocol/index.js';

// Defining tools
export {
  defineTool,
  anyTool,
  Registry,
  type ToolSpec,
  type ToolDefinition,
  type AnyTool,
  type ExecuteContext,
  type NormalizeContext,
  type ToolOutcome,
  type Manifest,
} from './registry/index.js';
// Rollout: canary shares of new tasks and retirements per tool or upstream namespace (docs/registry.md#rollout)
export { rolloutSchema, inCanary, type RolloutConfig } from './registry/index.js';
export { builtinTools } from './tools/index.js';

// Capabilities and policy
export { attenuate, parseGrantFile, DEFAULT_GRANT, type TaskGrant, type Grant, type Restrictions, type PolicySource } from './policy/index.js';

// Compatibility profiles: an agent's own tools on Toolgate's contracts (docs/profiles.md)
export { PROFILE_NAMES, type ProfileRunner, type ProfileAnswer, type ProfileCallOptions, type ProfileToolListing } from './profiles/index.js';
export { PROFILE_ORIGIN_KIND, type ProfileOrigin } from './protocol/index.js';

// MCP
export { serveMcpStdio, serveMcpHttp, type StdioServeOptions, type HttpServeOptions } from './server/index.js';

// Stores: the runtime's state behind an injected, asynchronous interface (SQLite by default)
export { sqliteStore, postgresStore, type Store, type StoreFactory, type StoreContext } from './store/index.js';
// Errors that stop Toolgate before it serves anything: a bad command line, configuration, grant or policy
export { StartupError, STARTUP_ERROR_CODES, type StartupErrorCode, type StartupErrorDataByCode } from './protocol/index.js';
export { GrantFileError, PolicyLoadError } from './policy/index.js';

// Where artifacts live: the state dir, or a folder the hosts of one database share (docs/scale.md)
export type { ArtifactLocation } from './artifacts/index.js';

// Gateway: upstream MCP servers behind Toolgate, each tool a governed registry entry (docs/gateway.md)
export { Gateway, upstreamsSchema, toolManifestSchema, type UpstreamsConfig, type ToolManifest, type DriftRecord, type UpstreamStatus } from './upstream/index.js';

// Subtasks: bounded delegation with attenuated grants and a worktree per child (docs/tasks.md)
export { TaskBoard, tasksConfigShape, checkTaskLinks, type TasksConfig, type Subtask, type SubtaskRecord, type TaskState, type TaskResult, type MergeOutcome, type TaskLinkReport } from './tasks/index.js';
