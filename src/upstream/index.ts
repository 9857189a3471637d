// The gateway: upstream MCP servers behind Toolgate, each tool a governed registry entry (docs/gateway.md).
export { Gateway, type GatewayOptions, type DriftRecord, type UpstreamStatus, type RevisionTarget } from './gateway.js';
export {
  upstreamsSchema,
  toolManifestSchema,
  parseUpstreams,
  upstreamSecretValues,
  MANIFEST_EFFECTS,
  type UpstreamsConfig,
  type UpstreamConfig,
  type ToolManifest,
  type ManifestEffect,
} from './config.js';
export { registryNameOf, declarationDigest, type UpstreamResult } from './tool-entry.js';
export type { ListingCause } from './connection.js';
