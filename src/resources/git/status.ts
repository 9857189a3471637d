// `git status` of a work tree, and which paths a command changed: the status before and after,
// compared. git runs where the caller says (shell.exec: inside its sandbox, read-only, without
// network), because the repository's own config (fsmonitor, filters) may name programs.
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { TreePacer } from '../paths/pacer.js';

export const MAX_CHANGED_PATHS = 1000;
/** The largest status output read; a larger one is cut there. */
export const MAX_STATUS_BYTES = 16 * 1024 * 1024;

/** The fixed command: porcelain v1, NUL-separated, every untracked file, no rename detection. */
export const STATUS_ARGV: readonly string[] = [
  'git',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
  'status',
  '--porcelain=v1',
  '-z',
  '--untracked-files=all',
  '--no-renames',
  '--ignore-submodules=all',
];
export const STATUS_ENV: Readonly<Record<string, string>> = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', GIT_OPTIONAL_LOCKS: '0', LANG: 'C.UTF-8' };

/** Runs a fixed git argv in `cwd` where its config can run nothing on the host; stdout, or null when it did not exit 0. */
export type ConfinedGit = (argv: readonly string[], env: Readonly<Record<string, string>>, cwd: string, signal: AbortSignal) => Promise<string | null>;

/** `git status` of the work tree: path → XY code, plus a stat signature of each listed path. */
export interface StatusSnapshot {
  readonly codes: ReadonlyMap<string, string>;
  readonly signatures: ReadonlyMap<string, string>;
}

function signatureOf(root: string, path: string): string {
  try {
    const st = lstatSync(join(root, path));
    return `${st.ino}:${st.size}:${st.mtimeMs}:${st.mode}`;
  } catch {
    return 'missing';
  }
}

/** The XY code of each path in `git status --porcelain=v1 -z` output (without renames). */
export function parseStatus(text: string): Map<string, string> {
  const codes = new Map<string, string>();
  for (const entry of text.split('\0')) {
    if (entry.length < 4) continue;
    codes.set(entry.slice(3), entry.slice(0, 2));
  }
  return codes;
}

/** The status of the work tree at `root`, read through `run`; null outside a git work tree or when git fails. */
export async function readGitStatus(run: ConfinedGit, root: string, signal: AbortSignal, pause?: () => Promise<void>): Promise<StatusSnapshot | null> {
  if (!existsSync(join(root, '.git'))) return null;
  const text = await run(STATUS_ARGV, STATUS_ENV, root, signal);
  if (text === null) return null;
  const codes = parseStatus(text);
  // One lstat per listed path: 30,000 untracked files (a node_modules git does not ignore) held
  // the event loop ~100 ms per status, twice per shell.exec. The loop runs every PACE_ENTRIES.
  const signatures = new Map<string, string>();
  const pacer = new TreePacer(pause);
  for (const path of codes.keys()) {
    signatures.set(path, signatureOf(root, path));
    if (pacer.due()) {
      await pacer.pause();
      signal.throwIfAborted();
    }
  }
  return { codes, signatures };
}

/**
 * Paths whose status changed, or that were dirty before and after but changed on disk: their
 * signatures, taken as each status was read, differ (a third lstat of every dirty path here
 * cost as much as each read).
 */
export function changedPaths(before: StatusSnapshot, after: StatusSnapshot): { paths: string[]; truncated: boolean } {
  const out = new Set<string>();
  for (const [path, code] of after.codes) {
    const was = before.codes.get(path);
    if (was !== code) out.add(path);
    else if (before.signatures.get(path) !== after.signatures.get(path)) out.add(path);
  }
  for (const path of before.codes.keys()) if (!after.codes.has(path)) out.add(path);
  const sorted = [...out].sort();
  return { paths: sorted.slice(0, MAX_CHANGED_PATHS), truncated: sorted.length > MAX_CHANGED_PATHS };
}
