// Removes the temporary entries a crashed Toolgate left in the workspace (`.tg-*.tmp` staged
// files, `.tg-*.del` trees moved aside, `.tg-*.restore` trees half rebuilt). Only entries whose
// owner process is gone are touched (temp-name.ts): another runtime on the same workspace keeps
// its work. Candidates are found by an asynchronous walk of directory entries (no link followed);
// each is then removed through its parent opened beneath the root with no link followed.
//
// The walk reads entries synchronously (`opendirSync`, `Dir.readSync`: one getdents a 256
// entries) and lets the event loop run every SWEEP_SLICE entries or directories. It runs at every
// open, over the whole workspace, while the first calls run (bench/sweep, docs/benchmarks.md):
// an `opendir` iterated with a promise per entry took 8.7x the time; one `readdir` per directory,
// 1.8x, held a directory's every entry in memory at once and blocked the event loop while it
// made them, however many millions there were.
import { closeSync, lstatSync, opendirSync, type Dir } from 'node:fs';
import { openDirectoryBeneath } from './open-directory.js';
import { procPath } from './open-beneath.js';
import { isToolgateTempName, ownerIsGone } from './temp-name.js';
import { removeTree } from './tree.js';
import { nextTurn, TreePacer } from './pacer.js';
import type { Workspace } from './workspace.js';

/** Directory entries one sweep lists at most (it stops there; the next open sweeps again). */
export const SWEEP_ENTRY_LIMIT = 1_000_000;
/** Entries and directories read between two turns of the event loop. */
const SWEEP_SLICE = 2_048;

/** The leftovers removed. `pause` lets the event loop run (every SWEEP_SLICE entries or directories). */
export async function sweepWorkspaceTemps(ws: Workspace, pause: () => Promise<void> = nextTurn): Promise<string[]> {
  const found: string[] = [];
  const pending: string[] = [''];
  let listed = 0;
  let inSlice = 0;
  while (pending.length > 0 && listed < SWEEP_ENTRY_LIMIT) {
    const rel = pending.pop() as string;
    let dir: Dir;
    try {
      dir = opendirSync(rel === '' ? ws.root : `${ws.root}/${rel}`, { bufferSize: 256 });
    } catch {
      continue;
    }
    inSlice++; // a tree of many empty directories yields too
    try {
      for (; listed < SWEEP_ENTRY_LIMIT; inSlice++) {
        if (inSlice >= SWEEP_SLICE) {
          inSlice = 0;
          await pause();
        }
        const entry = dir.readSync();
        if (entry === null) break;
        listed++;
        const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
        if (isToolgateTempName(entry.name)) {
          if (ownerIsGone(entry.name) === true) found.push(path);
        } else if (entry.isDirectory() && entry.name !== '.git') pending.push(path);
      }
    } catch {
      // removed or unreadable while listed: what was read counts
    } finally {
      dir.closeSync();
    }
  }
  const removed: string[] = [];
  const pacer = new TreePacer(pause);
  for (const path of found) if (await removeBeneath(ws, path, pacer)) removed.push(path);
  return removed;
}

async function removeBeneath(ws: Workspace, path: string, pacer: TreePacer): Promise<boolean> {
  const parts = path.split('/');
  const name = parts.pop() as string;
  try {
    const d = openDirectoryBeneath(ws.rootFd, ws.root, parts, { create: false });
    try {
      const st = lstatSync(procPath(d.fd, name));
      if (!st.isFile() && !st.isDirectory()) return false;
      await removeTree(d.fd, name, pacer);
      return true;
    } finally {
      if (d.fd !== ws.rootFd) closeSync(d.fd);
    }
  } catch {
    return false; // gone already, or the way there is no longer a plain directory path
  }
}
