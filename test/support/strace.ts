// A child runtime traced with strace, for the tests of what reaches the disk and in which order
// (test/artifacts/durable.test.ts, test/tools/fs-write/parents-sync.test.ts,
// test/tools/fs-undo/tree-restore.test.ts). The child marks the trace with `traceMark`.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** In the traced child: a failing open of /dev/null/<name>, which the trace shows; what follows it comes after. */
export function traceMark(name: string): void {
  try {
    closeSync(openSync(`/dev/null/${name}`, 'r'));
  } catch {
    // ENOTDIR, as meant
  }
}

export interface Traced {
  /** The child's standard output. */
  readonly stdout: string;
  readonly lines: readonly string[];
  /** The lines from mark `from` up to mark `to` (or the end). */
  between(from: string, to?: string): string[];
}

/**
 * Runs `child` (a TypeScript file, under tsx) with a fresh workspace and state dir under a real
 * temporary path, traced by `strace -f -qq -y` with `options` (e.g. `['-e', 'trace=fsync']`),
 * and hands the trace to `check`. The folders are removed afterwards.
 */
export function withTracedChild<T>(prefix: string, child: string, options: readonly string[], check: (t: Traced, dirs: { base: string; ws: string; state: string }) => T): T {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-`)));
  try {
    const ws = join(base, 'ws');
    const state = join(base, 'state');
    mkdirSync(ws);
    const trace = join(base, 'trace');
    const stdout = execFileSync('strace', ['-f', '-qq', '-y', '-o', trace, ...options, process.execPath, '--import', 'tsx', child, ws, state], { encoding: 'utf8', timeout: 120_000 });
    const lines = readFileSync(trace, 'utf8').split('\n');
    const at = (mark: string): number => {
      const i = lines.findIndex((l) => l.includes(`/dev/null/${mark}`));
      if (i < 0) throw new Error(`no mark ${mark} in the trace`);
      return i;
    };
    return check({ stdout, lines, between: (from, to) => lines.slice(at(from), to === undefined ? lines.length : at(to)) }, { base, ws, state });
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * Where the system call that starts on line `i` ended: that line, or the line where its thread
 * resumed it (strace prints a call over two lines when another thread's call comes between).
 */
export function endedAt(lines: readonly string[], i: number): number {
  const line = lines[i] ?? '';
  if (!line.endsWith('<unfinished ...>')) return i;
  const tid = line.split(' ')[0];
  const j = lines.findIndex((l, k) => k > i && l.startsWith(`${tid} `) && l.includes('resumed>'));
  return j < 0 ? lines.length : j;
}
