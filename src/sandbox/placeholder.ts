// An absent host-code path (the workspace's `.git`, `toolgate.config.json`) must not be
// creatable from inside the sandbox, and only a mount can stop that: the path is held by an
// empty file for the length of the run, masked inside, and removed when the last run holding
// it ends. (bubblewrap would create the mount point itself, and leave it on the host.)
import { closeSync, constants, fstatSync, lstatSync, openSync, unlinkSync } from 'node:fs';

const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = constants;

interface Held {
  count: number;
  readonly dev: number;
  readonly ino: number;
}

// Process-wide on purpose: the path is a host resource, and two runtimes (or two sandboxes of
// one tool) on the same workspace must share its placeholder. Removing it while another run
// still masks it would lift that run's mask (an unlinked mount point is detached everywhere).
const held = new Map<string, Held>();

export interface PlaceholderLease {
  /** Paths held by a placeholder for this run (a subset of those asked: the absent ones). */
  readonly paths: readonly string[];
  /** Idempotent. */
  release(): void;
}

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

/** Holds each absent path in `paths` with an empty, mode-0000 file until `release()`. */
export function holdAbsentPaths(paths: readonly string[]): PlaceholderLease {
  const mine: string[] = [];
  for (const path of paths) {
    const h = held.get(path);
    if (h) {
      h.count++;
      mine.push(path);
      continue;
    }
    let fd: number;
    try {
      fd = openSync(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o000);
    } catch (e) {
      if (errno(e) === 'EEXIST') continue; // present: covered as an existing entry
      for (const p of mine) releaseOne(p);
      throw e;
    }
    try {
      const st = fstatSync(fd);
      held.set(path, { count: 1, dev: st.dev, ino: st.ino });
    } finally {
      closeSync(fd);
    }
    mine.push(path);
  }
  let released = false;
  return {
    paths: mine,
    release: () => {
      if (released) return;
      released = true;
      for (const p of mine) releaseOne(p);
    },
  };
}

function releaseOne(path: string): void {
  const h = held.get(path);
  if (!h || --h.count > 0) return;
  held.delete(path);
  try {
    const st = lstatSync(path);
    // Only our own empty file: anything else there was put by someone we must not overrule.
    if (st.isFile() && st.dev === h.dev && st.ino === h.ino && st.size === 0) unlinkSync(path);
  } catch {
    // already gone
  }
}
