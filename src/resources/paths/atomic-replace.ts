// The point of effect for file mutations. Every step goes through an already-open parent
// directory (`/proc/self/fd/<dirfd>/<name>`), so no path is resolved again and no link is
// followed: a new file is staged under a temporary name in the same directory, synced, and
// renamed over the target only after the parent and the target are re-checked.
import { closeSync, constants, fchmodSync, fchownSync, fdatasync, fstatSync, fsync, fsyncSync, linkSync, lstatSync, openSync, readlinkSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { ToolgateError } from '../../protocol/index.js';
import { assertBeneath } from './open-directory.js';
import { procPath, type Identity } from './open-beneath.js';
import { renameNoReplace } from './renameat2.js';
import { tempName } from './temp-name.js';
import type { TreePacer } from './pacer.js';

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;
const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

/** File content plus the metadata a restore must bring back. */
export interface FileBytes {
  readonly data: Uint8Array;
  /** Permission bits (st_mode & 0o7777); written as `writableMode` (no set-id or sticky bits). */
  readonly mode: number;
  readonly uid?: number;
  readonly gid?: number;
}

/** What a directory entry was when it was checked; compared again right before the effect. */
export type LeafState =
  | { readonly kind: 'absent' }
  | { readonly kind: 'file'; readonly dev: number; readonly ino: number; readonly size: number; readonly mtimeMs: number; readonly ctimeMs: number }
  | { readonly kind: 'other'; readonly dev: number; readonly ino: number };

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

export function leafStateOf(dirfd: number, name: string): LeafState {
  try {
    const st = lstatSync(procPath(dirfd, name));
    if (!st.isFile()) return { kind: 'other', dev: st.dev, ino: st.ino };
    return { kind: 'file', dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs };
  } catch (e) {
    if (errno(e) === 'ENOENT') return { kind: 'absent' };
    throw e;
  }
}

export function sameLeafState(a: LeafState, b: LeafState): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'absent' || b.kind === 'absent') return true;
  if (a.dev !== b.dev || a.ino !== b.ino) return false;
  if (a.kind === 'file' && b.kind === 'file') return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
  return true;
}

/** The mode a file is written with: the permission bits of `mode`, never set-id or sticky. */
export function writableMode(mode: number): number {
  return mode & 0o777;
}

export interface StagedFile {
  readonly tmp: string;
  fd: number;
}

/** Writes `content` to a new temporary file in the directory; the fd stays open for the sync. */
export function stageFile(dirfd: number, content: FileBytes): StagedFile {
  const tmp = tempName('tmp');
  const fd = openSync(procPath(dirfd, tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    writeAll(fd, content.data, 0, content.data.length);
    return finishStaged(fd, tmp, content);
  } catch (e) {
    closeSync(fd);
    discardTemp(dirfd, tmp);
    throw e;
  }
}

/** As stageFile, written a slice at a time with the event loop let run between (a large file: fs.undo of 200 MB). */
export async function stageFilePaced(dirfd: number, content: FileBytes, pacer: TreePacer): Promise<StagedFile> {
  const tmp = tempName('tmp');
  const fd = openSync(procPath(dirfd, tmp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    await pacer.slices(content.data.length, (at, n) => writeAll(fd, content.data, at, n));
    return finishStaged(fd, tmp, content);
  } catch (e) {
    closeSync(fd);
    discardTemp(dirfd, tmp);
    throw e;
  }
}

function writeAll(fd: number, data: Uint8Array, at: number, n: number): void {
  for (let off = at; off < at + n; ) off += writeSync(fd, data, off, at + n - off);
}

/** The staged file's owner and mode, as the content says. */
function finishStaged(fd: number, tmp: string, content: FileBytes): StagedFile {
  // A new file is ours; only a file owned by someone else needs its owner brought back.
  const ours = content.uid === process.getuid?.() && content.gid === process.getgid?.();
  if (content.uid !== undefined && content.gid !== undefined && !ours) {
    const st = fstatSync(fd);
    if (st.uid !== content.uid || st.gid !== content.gid) {
      try {
        fchownSync(fd, content.uid, content.gid);
      } catch (e) {
        if (errno(e) !== 'EPERM') throw e; // not privileged: the file keeps our ownership
      }
    }
  }
  // Permission bits only: set-id and sticky bits are never written, whatever the preimage or
  // the request said (a setuid-root file is a privilege escalation). After chown.
  fchmodSync(fd, writableMode(content.mode));
  return { tmp, fd };
}

/** Syncs staged files in parallel (the journal commits them together) and closes them. */
export async function syncStaged(files: readonly StagedFile[]): Promise<void> {
  try {
    await Promise.all(files.map((f) => fdatasyncAsync(f.fd)));
  } finally {
    for (const f of files) {
      if (f.fd >= 0) closeSync(f.fd);
      f.fd = -1;
    }
  }
}

export function discardTemp(dirfd: number, tmp: string): void {
  try {
    unlinkSync(procPath(dirfd, tmp));
  } catch {
    // already gone
  }
}

/** Where an effect happens: the open parent, its identity when checked, and the entry's state then. */
export interface EffectSite {
  readonly root: string;
  /** Canonical workspace-relative path of the parent directory ('' for the root). */
  readonly dir: string;
  readonly path: string;
  readonly dirfd: number;
  readonly parent: Identity;
  readonly name: string;
  readonly expected: LeafState;
}

/**
 * Re-checks, right before the effect, that the parent is the directory that was checked
 * (device and inode), that it still lies beneath the root, and still at its canonical place
 * (not moved or swapped for another), and that the entry is what was checked.
 */
export function recheckSite(site: EffectSite): void {
  const st = fstatSync(site.dirfd);
  if (st.dev !== site.parent.dev || st.ino !== site.parent.ino) {
    throw new ToolgateError('precondition_failed', `the directory of ${site.path} changed`, { path: site.path, reason: 'parent_changed' });
  }
  // Its current place: exactly the canonical one (which also proves it is beneath the root).
  const where = readlinkSync(`/proc/self/fd/${site.dirfd}`);
  if (where !== (site.dir === '' ? site.root : `${site.root}/${site.dir}`)) {
    assertBeneath(site.dirfd, site.root, site.path);
    throw new ToolgateError('precondition_failed', `the directory of ${site.path} was moved or replaced`, { path: site.path, reason: 'parent_changed' });
  }
  const now = leafStateOf(site.dirfd, site.name);
  if (!sameLeafState(now, site.expected)) {
    if (site.expected.kind === 'absent') {
      throw new ToolgateError('already_exists', `${site.path} was created by someone else`, { path: site.path });
    }
    throw new ToolgateError('precondition_failed', `${site.path} changed since it was checked`, { path: site.path, reason: 'changed_since_check' });
  }
}

/**
 * Moves a staged file into place. A target that was absent is created with link(2), which
 * never replaces an entry that appeared meanwhile; an existing target is replaced by rename(2),
 * which replaces the entry itself (a link, or a hard link to a file elsewhere, is not written through).
 */
export function commitStaged(site: EffectSite, tmp: string): void {
  recheckSite(site);
  const from = procPath(site.dirfd, tmp);
  const to = procPath(site.dirfd, site.name);
  if (site.expected.kind === 'absent') {
    try {
      // Atomic and never replacing an entry that appeared meanwhile; link + unlink where unavailable.
      if (renameNoReplace(site.dirfd, tmp, site.dirfd, site.name) === 'unsupported') {
        linkSync(from, to);
        unlinkSync(from);
      }
    } catch (e) {
      if (errno(e) === 'EEXIST') throw new ToolgateError('already_exists', `${site.path} was created by someone else`, { path: site.path });
      throw e;
    }
  } else {
    renameSync(from, to);
  }
}

/** Removes a file entry after the same re-check. */
export function removeAtSite(site: EffectSite): void {
  recheckSite(site);
  unlinkSync(procPath(site.dirfd, site.name));
}

/** fsync(2) of a folder named by path (outside the workspace: the state dir and its files): the entries made in it, on disk. */
export function syncFolder(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Makes the directory entries durable (renames, links, unlinks): one fsync per directory, not
 * per descriptor. Each file of a call holds its own descriptor of its parent, and an fsync of a
 * directory whose journal commit is already done still flushes the disk's cache (~0.1 ms here):
 * fs.patch's 20 files in 11 directories synced 20 times (bench/patch).
 */
export async function syncDirectories(dirfds: readonly number[], sync: (fd: number) => Promise<void> = fsyncAsync): Promise<void> {
  const seen = new Set<string>();
  const once: number[] = [];
  for (const fd of new Set(dirfds)) {
    const st = fstatSync(fd);
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) continue;
    seen.add(id);
    once.push(fd);
  }
  await Promise.all(once.map((fd) => sync(fd)));
}
