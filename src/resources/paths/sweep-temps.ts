// Removes the temporary entries a crashed Toolgate left in the workspace (`.tg-*.tmp` staged
// files, `.tg-*.del` trees moved aside, `.tg-*.restore` trees half rebuilt). Only entries whose
// owner process is gone are touched (temp-name.ts): another runtime on the same workspace keeps
// its work. Candidates are found by an asynchronous walk of directory entries (no link followed);
// each is then removed through its parent opened beneath the root with no link followed.
//
// The walk lists each directory with one `readdir` on the thread pool, not an `opendir` iterated
// entry by entry: it runs while the first calls do, on every open, over the whole workspace, and
// a promise per entry cost about 4x the CPU (bench/sweep, docs/benchmarks.md).
import { closeSync, lstatSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { openDirectoryBeneath } from './open-directory.js';
import { procPath } from './open-beneath.js';
import { isToolgateTempName, ownerIsGone } from './temp-name.js';
import { removeTree } from './tree.js';
import type { Workspace } from './workspace.js';

/** Directory entries one sweep lists at most (it stops there; the next open sweeps again). */
export const SWEEP_ENTRY_LIMIT = 1_000_000;

export async function sweepWorkspaceTemps(ws: Workspace): Promise<string[]> {
  const found: string[] = [];
  const pending: string[] = [''];
  let listed = 0;
  while (pending.length > 0 && listed < SWEEP_ENTRY_LIMIT) {
    const rel = pending.pop() as string;
    let entries;
    try {
      entries = await readdir(rel === '' ? ws.root : `${ws.root}/${rel}`, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (++listed >= SWEEP_ENTRY_LIMIT) break;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (isToolgateTempName(entry.name)) {
        if (ownerIsGone(entry.name) === true) found.push(path);
      } else if (entry.isDirectory() && entry.name !== '.git') pending.push(path);
    }
  }
  const removed: string[] = [];
  for (const path of found) if (removeBeneath(ws, path)) removed.push(path);
  return removed;
}

function removeBeneath(ws: Workspace, path: string): boolean {
  const parts = path.split('/');
  const name = parts.pop() as string;
  try {
    const d = openDirectoryBeneath(ws.rootFd, ws.root, parts, { create: false });
    try {
      const st = lstatSync(procPath(d.fd, name));
      if (!st.isFile() && !st.isDirectory()) return false;
      removeTree(d.fd, name);
      return true;
    } finally {
      if (d.fd !== ws.rootFd) closeSync(d.fd);
    }
  } catch {
    return false; // gone already, or the way there is no longer a plain directory path
  }
}
