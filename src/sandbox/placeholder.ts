// An absent host-code path (the workspace's `.git`, `toolgate.config.json`) must not be
// creatable from inside the sandbox, and only a mount can stop that: the path is held by an
// empty file for the length of the run, masked inside, and removed when the last run holding
// it ends. (bubblewrap would create the mount point itself, and leave it on the host.)
import { closeSync, constants, fstatSync, futimesSync, lstatSync, openSync, unlinkSync, type Stats } from 'node:fs';

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

/** An empty, mode-0000 regular file: what only a placeholder is (nothing else has a use for it). */
export function isPlaceholder(st: Stats): boolean {
  return st.isFile() && st.size === 0 && (st.mode & 0o7777) === 0;
}

function ownerAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errno(e) === 'EPERM';
  }
}

/**
 * Removes placeholders whose owner process is gone (a runtime killed mid-run), so that a crash
 * does not leave an empty `.git` that breaks the host's git, or an empty config. The owner's pid
 * is the placeholder's mtime in seconds (set when it is made: no xattrs without native code, and
 * a file we own and nobody reads needs no real mtime). A reused pid only keeps the file longer.
 */
export function sweepAbandonedPlaceholders(paths: readonly string[]): void {
  for (const path of paths) {
    if (held.has(path)) continue;
    try {
      const st = lstatSync(path);
      if (isPlaceholder(st) && st.mtime.getTime() % 1000 === 0 && !ownerAlive(st.mtime.getTime() / 1000)) unlinkSync(path);
    } catch {
      // absent, or gone meanwhile
    }
  }
}

/** Holds each absent path in `paths` with an empty, mode-0000 file until `release()`. */
export function holdAbsentPaths(paths: readonly string[]): PlaceholderLease {
  const mine: string[] = [];
  sweepAbandonedPlaceholders(paths);
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
      futimesSync(fd, new Date(), process.pid);
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
