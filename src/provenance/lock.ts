/** One package of the resolved runtime dependency tree, as the lock file pins it. */
export interface LockedDependency {
  /** Where npm installs it, e.g. `node_modules/pg` or `node_modules/a/node_modules/b`. */
  readonly path: string;
  readonly name: string;
  readonly version: string;
  /** The lock's Subresource Integrity string (sha512 of the tarball); null when the lock has none. */
  readonly integrity: string | null;
  /** An optional dependency (a platform's prebuilt binary): its absence is no fault. */
  readonly optional: boolean;
}

interface LockEntry {
  readonly name?: string;
  readonly version?: string;
  readonly integrity?: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly link?: boolean;
}

/**
 * The runtime dependency tree of a package-lock.json (lockfile v2/v3 `packages`): every entry
 * but the root, links (the package itself, `file:` workspaces) and dev-only packages, sorted by
 * path. `devOptional` entries are kept: they are needed at run time by some platform.
 */
export function runtimeDependencies(lock: unknown): LockedDependency[] {
  const packages = (lock as { packages?: Record<string, LockEntry> } | null)?.packages;
  if (packages === undefined || packages === null || typeof packages !== 'object') throw new TypeError('not a package-lock.json of lockfileVersion 2 or 3 (no "packages")');
  const out: LockedDependency[] = [];
  for (const [path, e] of Object.entries(packages)) {
    if (path === '' || e.link === true || e.dev === true) continue;
    const name = e.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    out.push({ path, name, version: e.version ?? '', integrity: e.integrity ?? null, optional: e.optional === true });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
