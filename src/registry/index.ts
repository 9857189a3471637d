export {
  defineTool,
  anyTool,
  type ToolSpec,
  type ToolDefinition,
  type AnyTool,
  type CapabilityDimension,
  type IdempotencyContract,
  type CancellationMode,
  type DeprecationState,
  type RedactionRules,
} from './define.js';
export { Registry, type Resolved } from './registry.js';
export { Rollout, rolloutSchema, inCanary, type RolloutConfig, type ToolRollout } from './rollout.js';
export { buildManifest, entryOf, parseManifest, compareVersions, MANIFEST_FORMAT, type Manifest, type ManifestEntry } from './manifest.js';
export type {
  ArtifactSink,
  ArtifactWriter,
  TokenCodec,
  RevisionSource,
  ReceiptLookup,
  ProgressSink,
  NormalizeContext,
  Normalized,
  ExecuteContext,
  Recheck,
  ToolOutcome,
  RedactionWindow,
  ReconcileContext,
  ReconcileVerdict,
  EffectIntent,
} from './context.js';
export { diffManifests, type DiffOptions } from './diff.js';
export { formatDiff } from './diff-format.js';
export {
  REGISTRY_DIFF_FORMAT,
  type ManifestDiff,
  type RegistryChange,
  type ChangeKind,
  type ChangeSeverity,
  type SchemaSide,
} from './change.js';
export { asOutcome, failedOutcome } from './outcome.js';
