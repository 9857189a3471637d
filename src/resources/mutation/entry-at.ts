// What is at a workspace path now, as the mutation tools and their undo and reconcile see it:
// the file opened for a rewrite, its sha256, its device/inode; and the cleanup of directories a
// write created. Every path is reached through directory fds beneath the root, never a link.
import { closeSync, lstatSync, rmdirSync } from 'node:fs';
import { ToolgateError, sha256Hex } from '../../protocol/index.js';
import { openDirectoryBeneath } from '../paths/open-directory.js';
import { procPath } from '../paths/open-beneath.js';
import { syncDirectories } from '../paths/atomic-replace.js';
import { assertWritable, openWriteTarget, type OpenedTarget } from '../paths/write-target.js';
import type { Workspace } from '../paths/workspace.js';

const MAX_BYTES = 256 * 1024 * 1024;

function split(path: string): { dir: string[]; name: string } {
  const parts = path.split('/');
  return { dir: parts.slice(0, -1), name: parts[parts.length - 1] as string };
}

/** Opens a path for undo; a missing parent reads as a missing file. */
export function openForUndo(ws: Workspace, path: string, createParents: boolean): OpenedTarget | null {
  assertWritable(ws, path, path);
  const { dir, name } = split(path);
  try {
    return openWriteTarget(ws, { path, dir, name, exists: true, parent: null }, { createParents, maxBytes: MAX_BYTES });
  } catch (e) {
    if (ToolgateError.isInstance(e) && e.code === 'not_found') return null;
    throw e;
  }
}

/** The sha256 of the regular file at `path`, null when absent, 'other' when something else is there. */
export function shaAt(ws: Workspace, path: string): string | null | 'other' {
  let t;
  try {
    t = openForUndo(ws, path, false);
  } catch (e) {
    if (ToolgateError.isInstance(e) && (e.code === 'invalid_resource' || e.code === 'unsupported')) return 'other';
    throw e;
  }
  if (!t) return null;
  try {
    if (t.state.kind === 'other') return 'other';
    return t.current ? sha256Hex(t.current.data) : null;
  } finally {
    t.close();
  }
}

/** The device/inode at `path` beneath the root (not following a last-component link), or null. */
export function identityAt(ws: Workspace, path: string): { dev: number; ino: number; nlink: number } | null {
  const parts = path.split('/');
  let d;
  try {
    d = openDirectoryBeneath(ws.rootFd, ws.root, parts.slice(0, -1), { create: false });
  } catch (e) {
    if (ToolgateError.isInstance(e) && e.code === 'not_found') return null;
    throw e;
  }
  try {
    const st = lstatSync(procPath(d.fd, parts[parts.length - 1] as string), { throwIfNoEntry: false });
    return st ? { dev: st.dev, ino: st.ino, nlink: st.nlink } : null;
  } finally {
    if (d.fd !== ws.rootFd) closeSync(d.fd);
  }
}

/**
 * Makes the directories a write created durable: each one's entry, by a sync of its parent. The
 * file's own directory is synced after the file takes its name; the entries of the directories
 * on its way were not, and a file system that does not commit a directory's creation with its
 * child's sync (XFS, btrfs) could lose them, and the file, at a power loss after a succeeded
 * write. Runs while the staged files sync: no round of syncs of its own.
 */
export async function syncCreatedDirs(ws: Workspace, dirs: readonly string[]): Promise<void> {
  const parents: number[] = [];
  try {
    for (const dir of dirs) parents.push(openDirectoryBeneath(ws.rootFd, ws.root, split(dir).dir, { create: false }).fd);
    await syncDirectories(parents);
  } finally {
    for (const fd of parents) if (fd !== ws.rootFd) closeSync(fd);
  }
}

/** Removes directories a write created, innermost first, when they are empty again (through the open parent). */
export function removeEmptyDirs(ws: Workspace, dirs: readonly string[]): void {
  for (const dir of [...dirs].reverse()) {
    const { dir: parent, name } = split(dir);
    try {
      const d = openDirectoryBeneath(ws.rootFd, ws.root, parent, { create: false });
      try {
        rmdirSync(procPath(d.fd, name));
      } finally {
        if (d.fd !== ws.rootFd) closeSync(d.fd);
      }
    } catch {
      // not empty, gone, or no longer reachable without a link: leave it
    }
  }
}
