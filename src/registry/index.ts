export {
  defineTool,
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
  ToolOutcome,
  ReconcileContext,
  ReconcileVerdict,
} from './context.js';
