import type { Digest } from '../protocol/index.js';
import { computeManifest, runtimeDigestOf } from './manifest.js';
import { packageRootOf, type PackageRoot } from './package-root.js';

/**
 * The digest of the runtime that is running: the manifest recomputed from the installed files
 * (not read from the shipped manifest, so a tampered install names itself by another digest).
 *
 * Kept per package folder for the life of the process: the files are read and hashed once
 * (about 1,400 files, 8 MB, tens of milliseconds), not at every runtime a host opens, and never
 * on a call's path. The cache is of a fact of the installation, the same for every runtime
 * instance in the process; a file changed after start is what `toolgate version --verify` finds.
 */
const computed = new Map<string, Promise<Digest>>();

export function runningRuntimeDigest(root: PackageRoot = packageRootOf()): Promise<Digest> {
  const key = `${root.dir}\0${root.codeDir}`;
  let p = computed.get(key);
  if (p === undefined) {
    p = computeManifest(root).then(runtimeDigestOf);
    // A failed computation (a file unreadable mid-upgrade) is not remembered: the next open tries again.
    p.catch(() => computed.delete(key));
    computed.set(key, p);
  }
  return p;
}
