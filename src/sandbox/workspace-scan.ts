// What the sandbox must cover inside the workspace, found by one walk before each run: secret
// files and directories (masked: the command can neither read, link nor replace them) and the
// repository metadata and configuration that the host obeys later (bound read-only onto
// themselves, so the entry itself cannot be renamed, removed or replaced either).
import { lstatSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
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
  /** What earlier scans with the same root and `classify` found, directory by directory. */
  readonly cache?: ScanCache;
}

/** One directory as a scan classified it: what it holds that the sandbox covers, and where to go on. */
interface DirListing {
  /** Device, inode, mtime and ctime (ns) of the directory when it was read. */
  readonly sig: string;
  readonly entries: number;
  readonly protectedEntries: readonly { readonly name: string; readonly link: boolean; readonly gitfile: boolean }[];
  readonly secretDirs: readonly string[];
  readonly secretFiles: readonly string[];
  readonly subdirs: readonly string[];
}

/**
 * A directory whose mtime is this close to the time it was read is read again next time: file
 * times come from a coarse clock (a jiffy, up to 10 ms), so a change within the same tick after
 * the read would leave the same mtime behind (git's "racily clean" entries, the same rule).
 */
const RACY_MS = 1000;

/**
 * The scan's per-directory results, reused while a directory's device, inode, mtime and ctime
 * are those it had when read (an entry added, removed, renamed or replaced changes the mtime of
 * its directory; chmod changes the ctime), and it was not read within RACY_MS of its last
 * change. Each scan still stats every directory it walks and re-reads every gitfile; only the
 * listing and the classification of unchanged directories are skipped. One per Sandbox: the
 * classification is that of its `classify`.
 */
export class ScanCache {
  #dirs = new Map<string, DirListing>();

  /** @internal */
  get(dir: string, sig: string): DirListing | undefined {
    const hit = this.#dirs.get(dir);
    return hit?.sig === sig ? hit : undefined;
  }

  /** @internal Replaces the whole cache with what one complete scan visited (a vanished directory is dropped). */
  replace(dirs: Map<string, DirListing>): void {
    this.#dirs = dirs;
  }

  get size(): number {
    return this.#dirs.size;
  }
}

function signatureOf(dir: string): { sig: string; changedMs: number } | null {
  try {
    const st = lstatSync(dir, { bigint: true, throwIfNoEntry: false });
    if (!st) return null;
    return { sig: `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`, changedMs: Number((st.mtimeNs > st.ctimeNs ? st.mtimeNs : st.ctimeNs) / 1_000_000n) };
  } catch {
    return null;
  }
}

function listDir(dir: string, prefix: string, sig: string, classify: (rel: string) => PathClass): DirListing | null {
  let list: Dirent[];
  try {
    list = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null; // vanished or unreadable: nothing the command could see through it either
  }
  const protectedEntries: { name: string; link: boolean; gitfile: boolean }[] = [];
  const secretDirs: string[] = [];
  const secretFiles: string[] = [];
  const subdirs: string[] = [];
  for (const e of list) {
    const cls = classify(prefix + e.name);
    if (cls === 'protected') protectedEntries.push({ name: e.name, link: e.isSymbolicLink(), gitfile: e.isFile() && e.name === '.git' });
    else if (cls === 'secret') {
      if (e.isDirectory()) secretDirs.push(e.name);
      else if (!e.isSymbolicLink()) secretFiles.push(e.name);
    } else if (e.isDirectory()) subdirs.push(e.name);
  }
  return { sig, entries: list.length, protectedEntries, secretDirs, secretFiles, subdirs };
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
  const seen = new Map<string, DirListing>();
  let entries = 0;
  const visit = (dir: string, prefix: string): void => {
    let listing: DirListing | null | undefined;
    if (o.cache) {
      const now = Date.now();
      const s = signatureOf(dir);
      if (s === null) return; // vanished
      listing = o.cache.get(dir, s.sig);
      if (!listing) {
        listing = listDir(dir, prefix, s.sig, o.classify);
        if (listing && now - s.changedMs > RACY_MS) seen.set(dir, listing);
      } else seen.set(dir, listing);
    } else listing = listDir(dir, prefix, '', o.classify);
    if (!listing) return;
    entries += listing.entries;
    if (entries > limits.maxEntries) {
      throw new ToolgateError('limit_exceeded', 'the workspace has more entries than the sandbox scans for secret and protected paths', { limit: 'scan_entries', value: limits.maxEntries, entries });
    }
    for (const p of listing.protectedEntries) {
      const rel = prefix + p.name;
      const abs = join(dir, p.name);
      if (p.link) {
        throw new ToolgateError('unsupported', `${rel} is a symbolic link: the sandbox cannot keep it from being replaced`, { path: rel, reason: 'protected_link' });
      }
      readOnly.push(abs);
      if (p.gitfile) {
        const gitdir = gitdirOf(abs);
        // Never a gitdir that encloses the gitfile (the workspace itself): that is no repository layout.
        if (gitdir !== null && isWithin(gitdir, root) && !isWithin(abs, gitdir)) readOnly.push(gitdir);
      }
    }
    for (const name of listing.secretDirs) maskDirs.push(join(dir, name));
    for (const name of listing.secretFiles) maskFiles.push(join(dir, name));
    for (const name of listing.subdirs) {
      const abs = join(dir, name);
      if (traversable(abs, o.user.uid, o.user.gid)) visit(abs, prefix + name + '/');
    }
  };
  visit(root, '');
  o.cache?.replace(seen);
  // A gitdir found through a gitfile may lie under a directory walked later; keep the outermost.
  const ro = readOnly.filter((p) => !readOnly.some((q) => q !== p && isWithin(p, q)));
  const mounts = ro.length + maskFiles.length + maskDirs.length;
  if (mounts > limits.maxMounts) {
    throw new ToolgateError('limit_exceeded', 'the workspace holds more secret and protected paths than the sandbox covers', { limit: 'scan_mounts', value: limits.maxMounts, mounts });
  }
  return { readOnly: ro, maskFiles: maskFiles.filter((f) => !ro.some((p) => isWithin(f, p))), maskDirs: maskDirs.filter((d) => !ro.some((p) => isWithin(d, p))) };
}
