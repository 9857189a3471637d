// git for the task tree: snapshots, worktrees and merges run by Toolgate itself on fixed argv.
// Every run goes through the parent repository's git dir (never a child worktree's `.git` file,
// which the child's tools could rewrite to point at a config of its choosing), with hooks off,
// no fsmonitor, no system or global config, and a fixed identity for the commits it makes.
import { gitArgs, runChild } from '../resources/index.js';
import { ToolgateError } from '../protocol/index.js';

const GIT_TIMEOUT_MS = 60_000;

export interface GitRun {
  readonly stdout: Buffer;
  readonly code: number | null;
  readonly stderr: string;
}

const IDENTITY = { GIT_AUTHOR_NAME: 'toolgate', GIT_AUTHOR_EMAIL: 'toolgate@localhost', GIT_COMMITTER_NAME: 'toolgate', GIT_COMMITTER_EMAIL: 'toolgate@localhost' };

/** The environment git gets: PATH and HOME only, plus what the call sets (index file, dates). */
function envOf(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
    ...IDENTITY,
    ...extra,
  };
}

/** Runs git; `ok: false` is returned, not thrown, so the caller says what failed in its own terms. */
export async function git(cwd: string, args: readonly string[], opts: { env?: Readonly<Record<string, string>>; signal?: AbortSignal } = {}): Promise<GitRun> {
  const timeout = AbortSignal.timeout(GIT_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const chunks: Buffer[] = [];
  const r = await runChild('git', gitArgs('-c', 'core.hooksPath=/dev/null', ...args), { cwd, signal, env: envOf(opts.env ?? {}), onStdout: (c) => void chunks.push(c) });
  return { stdout: Buffer.concat(chunks), code: r.code, stderr: r.stderr };
}

/** git that must succeed: its stdout, or `execution_failed` naming the step. */
export async function gitOk(cwd: string, args: readonly string[], step: string, opts: { env?: Readonly<Record<string, string>>; signal?: AbortSignal } = {}): Promise<Buffer> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0) {
    throw new ToolgateError('execution_failed', `git could not ${step}: ${r.stderr.trim().slice(0, 400)}`, { reason: `git: ${step}`, exit_code: r.code });
  }
  return r.stdout;
}
