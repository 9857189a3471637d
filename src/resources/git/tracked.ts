// How many index entries git tracks at or under a path, read on the host (fs.delete reports
// whether what it removed was tracked).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runGit, splitZ } from './run.js';

/** How long git may take to list a path's entries before the count is given up (null). */
export const TRACKED_TIMEOUT_MS = 10_000;

/**
 * How many index entries git tracks at or under `path`; null when the workspace is not a git
 * work tree or git cannot tell (it failed, or took over TRACKED_TIMEOUT_MS). It runs as a child
 * the event loop waits for, not with execFileSync: in a large repository `git ls-files` held
 * every other call on the server for as long as it ran (up to the 10 s timeout). `signal` (the
 * call's) stops it and rejects with its reason. Nothing in the repository's config runs (gitArgs).
 */
export async function trackedEntries(root: string, path: string, signal: AbortSignal): Promise<number | null> {
  if (!existsSync(join(root, '.git'))) return null;
  const limit = AbortSignal.any([signal, AbortSignal.timeout(TRACKED_TIMEOUT_MS)]);
  let out: Awaited<ReturnType<typeof runGit>>;
  try {
    out = await runGit(root, ['--literal-pathspecs', 'ls-files', '-z', '--', path], limit);
  } catch {
    signal.throwIfAborted();
    return null;
  }
  signal.throwIfAborted();
  return out.code === 0 ? splitZ(out.stdout).length : null;
}
