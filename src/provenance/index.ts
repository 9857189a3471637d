export { packageRootOf, BUILT_CODE_DIR, type PackageRoot } from './package-root.js';
export { runtimeDependencies, type LockedDependency } from './lock.js';
export { shippedFiles, sha256OfFile, type ManifestFile } from './files.js';
export {
  RUNTIME_MANIFEST_FORMAT,
  RUNTIME_MANIFEST_PATH,
  computeManifest,
  readShippedManifest,
  runtimeDigestOf,
  shippedForm,
  type RuntimeManifest,
  type ShippedManifest,
} from './manifest.js';
export { verifyInstalled, describeDifference, type ManifestDifference, type VerifyReport } from './verify.js';
export { runningRuntimeDigest } from './runtime-identity.js';
export { probeHostTools, hostToolsOnce, HOST_TOOLS, type HostTool } from './host-tools.js';
