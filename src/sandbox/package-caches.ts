// Package-manager caches scoped to one workspace (docs/shell.md#package-caches): inside the
// sandbox npm, pip, cargo and go (and anything following XDG_CACHE_HOME) write to the
// workspace's own cache folder, bound read-write at a fixed path, never to the host's caches
// (which the sandbox hides with the home's dot-entries) nor to another workspace's. A package
// one workspace fetched cannot be planted in, or read from, another's cache.
import { chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** Where the workspace's cache folder appears inside the sandbox (/run is the sandbox's own tmpfs). */
export const SANDBOX_CACHE_DIR = '/run/toolgate-cache';

/** The variables that point each package manager at `root` (the cache folder as the command sees it). */
export function packageCacheEnv(root: string): Record<string, string> {
  return {
    npm_config_cache: join(root, 'npm'),
    PIP_CACHE_DIR: join(root, 'pip'),
    CARGO_HOME: join(root, 'cargo'),
    GOCACHE: join(root, 'go-build'),
    GOMODCACHE: join(root, 'go-mod'),
    XDG_CACHE_HOME: join(root, 'xdg'),
  };
}

/** Creates the host folder (0700) for the user the command runs as. */
export function preparePackageCache(dir: string, user: { readonly uid: number; readonly gid: number }): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (typeof process.getuid === 'function' && process.getuid() === 0 && user.uid !== 0) chownSync(dir, user.uid, user.gid);
}

/**
 * Whether the workspace's cache folder can be bound for a command run as `user`: bwrap runs as
 * that user and must walk to the folder, which lies in the runtime's private (0700) state dir.
 * A command run as another user (the workspace's owner, when the runtime is root) gets the cache
 * variables pointing at the sandbox's own tmpfs instead: never the host's caches nor another
 * workspace's, but not kept between calls.
 */
export function cacheBindable(user: { readonly uid: number }): boolean {
  return typeof process.getuid !== 'function' || process.getuid() === user.uid;
}
