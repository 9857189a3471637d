// What the sandbox must cover inside the workspace, found by one walk before each run: secret
// files and directories (masked: the command can neither read, link nor replace them) and the
// repository metadata and configuration that the host obeys later (bound read-only onto
// themselves, so the entry itself cannot be renamed, removed or replaced either).
import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ToolgateError } from '../protocol/index.js';
import type { PathClass } from '../resources/index.js';

/** Mounts over workspace entries, by absolute path (all beneath the workspace). */
export interface WorkspaceMounts {
  /** Bound read-only onto themselves: `.git` (directory or gitfile) at any depth, its gitdir, Toolgate's config. */
  readonly readOnly: readonly string[];
  /** Secret files: a read-only bind of /dev/null (nodev: cannot be opened; a mount point: cannot be linked, moved or replaced). */
  readonly maskFiles: readonly string[];
  /** Secret directories: an empty read-only tmpfs. */
  readonly maskDirs: readonly string[];
}

export const NO_WORKSPACE_MOUNTS: WorkspaceMounts = { readOnly: [], maskFiles: [], maskDirs: [] };

export interface ScanLimits {
  /** Entries listed before the walk gives up (fail closed: the run is refused). */
  readonly maxEntries: number;
  /** Mounts before the run is refused: each costs bubblewrap time on every spawn. */
  readonly maxMounts: number;
}

export const DEFAULT_SCAN_LIMITS: ScanLimits = { maxEntries: 500_000, maxMounts: 2_048 };

export interface ScanOptions {
  /** Workspace-relative path → class (the runtime's classifier: configured patterns included). */
  readonly classify: (relPath: string) => PathClass;
  readonly limits?: ScanLimits;
  /** The user the command runs as: directories it cannot walk hold nothing it could reach. */
  readonly user: { readonly uid: number; readonly gid: number };
}

function traversable(path: string, uid: number, gid: number): boolean {
  if (uid === 0) return true;
  try {
    const st = statSync(path);
    const bit = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
    return (st.mode & bit) !== 0;
  } catch {
    return false;
  }
}

/** The gitdir a `.git` file points at (`gitdir: PATH`, relative to the file), or null. */
function gitdirOf(gitfile: string): string | null {
  try {
    const m = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(gitfile, 'utf8').slice(0, 4096));
    if (!m?.[1]) return null;
    return isAbsolute(m[1]) ? m[1] : resolve(dirname(gitfile), m[1]);
  } catch {
    return null;
  }
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir + '/');
}

/**
 * Walks the workspace (links are not followed) and lists what to cover. A protected entry that
 * is a symbolic link cannot be covered (a bind follows it) and refuses the run: the link itself
 * could be replaced. A secret link is left alone: masking it would mask its target, which the
 * command reaches under its own name anyway.
 */
export function scanWorkspace(root: string, o: ScanOptions): WorkspaceMounts {
  const limits = o.limits ?? DEFAULT_SCAN_LIMITS;
  const readOnly: string[] = [];
  const maskFiles: string[] = [];
  const maskDirs: string[] = [];
  let entries = 0;
  const visit = (dir: string, prefix: string): void => {
    let list: Dirent[];
    try {
      list = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // vanished or unreadable: nothing the command could see through it either
    }
    entries += list.length;
    if (entries > limits.maxEntries) {
      throw new ToolgateError('limit_exceeded', 'the workspace has more entries than the sandbox scans for secret and protected paths', { limit: 'scan_entries', value: limits.maxEntries, entries });
    }
    for (const e of list) {
      const rel = prefix + e.name;
      const abs = join(dir, e.name);
      const cls = o.classify(rel);
      if (cls === 'protected') {
        if (e.isSymbolicLink()) {
          throw new ToolgateError('unsupported', `${rel} is a symbolic link: the sandbox cannot keep it from being replaced`, { path: rel, reason: 'protected_link' });
        }
        readOnly.push(abs);
        if (e.isFile() && e.name === '.git') {
          const gitdir = gitdirOf(abs);
          // Never a gitdir that encloses the gitfile (the workspace itself): that is no repository layout.
          if (gitdir !== null && isWithin(gitdir, root) && !isWithin(abs, gitdir)) readOnly.push(gitdir);
        }
      } else if (cls === 'secret') {
        if (e.isDirectory()) maskDirs.push(abs);
        else if (!e.isSymbolicLink()) maskFiles.push(abs);
      } else if (e.isDirectory() && traversable(abs, o.user.uid, o.user.gid)) {
        visit(abs, rel + '/');
      }
    }
  };
  visit(root, '');
  // A gitdir found through a gitfile may lie under a directory walked later; keep the outermost.
  const ro = readOnly.filter((p) => !readOnly.some((q) => q !== p && isWithin(p, q)));
  const mounts = ro.length + maskFiles.length + maskDirs.length;
  if (mounts > limits.maxMounts) {
    throw new ToolgateError('limit_exceeded', 'the workspace holds more secret and protected paths than the sandbox covers', { limit: 'scan_mounts', value: limits.maxMounts, mounts });
  }
  return { readOnly: ro, maskFiles: maskFiles.filter((f) => !ro.some((p) => isWithin(f, p))), maskDirs: maskDirs.filter((d) => !ro.some((p) => isWithin(d, p))) };
}
