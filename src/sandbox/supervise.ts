import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { spawnPiped, type PipedChild } from './spawn-piped.js';
import type { Readable, Writable } from 'node:stream';
import { abortKindOf } from '../protocol/index.js';
import type { ArtifactWriter } from '../registry/index.js';
import { processStat, sendSignal, signalName } from './process-table.js';
import { StreamCapture, type StreamName, type StreamSummary } from './stream-capture.js';
import type { BlockPipe } from './block-fd.js';
import type { SandboxCgroups } from './cgroups.js';
import { killWithChildren, settlesWithin, waitUntilEmpty } from './teardown.js';
import { failpoint } from '../protocol/index.js';

/** Why the command ended. */
export type ExitReason = 'exited' | 'signaled' | 'timeout' | 'idle_timeout' | 'cancelled' | 'output_limit' | 'spawn_failed';
type StopReason = 'timeout' | 'idle_timeout' | 'cancelled' | 'output_limit';

/** One read from a stream, in the order Toolgate saw them across both streams. */
export interface OutputChunk {
  readonly stream: StreamName;
  readonly seq: number;
  /** Milliseconds since the spawn. */
  readonly at_ms: number;
  readonly bytes: number;
}

export interface SuperviseSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Spawn as this uid/gid (supplementary groups dropped); null: as the runtime. */
  readonly user: { readonly uid: number; readonly gid: number } | null;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: Buffer | null;
  /** `bwrap`: the pid namespace's init is known from bubblewrap's info fd and ends everything. */
  readonly mode: 'bwrap' | 'process';
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number | null;
  readonly graceMs: number;
  readonly outputCapBytes: number;
  readonly previewHeadBytes: number;
  readonly previewTailBytes: number;
  readonly secrets: readonly string[];
  readonly cgroups: SandboxCgroups | null;
  readonly signal: AbortSignal | undefined;
  readonly openArtifact: ((stream: StreamName) => ArtifactWriter) | null;
  readonly onChunk: ((c: OutputChunk) => void) | undefined;
  /**
   * bubblewrap only: bubblewrap waits on fd 4 until this resolves for its init (joining the
   * cgroups); a rejection ends the run as spawn_failed.
   */
  readonly joinInit: ((pid: number) => Promise<void>) | null;
  /**
   * bubblewrap's block fd as a pipe (block-fd.ts), written at the release: a fresh wrapper gets its
   * read end at fd 4, a spare has had its own at fd 6 since it started. Null: a socket pair (no koffi).
   */
  readonly block?: BlockPipe | null;
  /**
   * bubblewrap only: instead of spawning `file`, start a spare wrapper (spare.ts) that is in the
   * cgroups already; `joinInit` is then null, and its block fd is `blockFd`.
   */
  readonly spare?: { readonly start: () => ChildProcess | PipedChild; readonly blockFd: number; readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error: Error | null }> };
  /**
   * Called before the command may start, never when the call was cancelled first. Under
   * bubblewrap it runs while bubblewrap sets the sandbox up, and the command is held on the block
   * fd until it resolves (a rejection kills the sandbox, then supervise throws it); without
   * bubblewrap it is awaited before the spawn.
   */
  readonly onSpawn: (() => void | Promise<void>) | undefined;
}

export interface Supervised {
  readonly exit_code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly reason: ExitReason;
  readonly duration_ms: number;
  readonly stdout: StreamSummary;
  readonly stderr: StreamSummary;
  /**
   * Processes of the command still running in its cgroup when it exited by itself (background
   * jobs, daemons); teardown killed them. Exact without bubblewrap; under bubblewrap a lower
   * bound, since the namespace starts dying as the wrapper exits. 0 without a cgroup.
   */
  readonly killed_after_exit: number;
  readonly notes: string[];
}

/** Wrapper exit status that means the sandbox was never set up (see wrapper.ts). */
const SETUP_FAILED = 125;
/** A process-mode stream held open by an escaped process is abandoned after this. */
const DRAIN_LIMIT_MS = 2_000;

function stopReasonOf(signal: AbortSignal): StopReason {
  const kind = abortKindOf(signal.reason);
  return kind === 'deadline' || kind === 'timeout' ? 'timeout' : 'cancelled';
}

/**
 * A fresh wrapper for bubblewrap through posix_spawn (spawn-piped.ts: no fork of the runtime on
 * the event loop), with what child_process.spawn gave it: stdin a socket pair or /dev/null,
 * stdout, stderr and the info fd socket pairs, the block pipe at fd 4 (block-fd.ts). Null where
 * posix_spawn is not reachable. This waited for the block fd to stop taking a dead runtime's
 * end-of-file for a go: with posix_spawn's timing the failpoint matrix saw that race leave a
 * torn shell.exec (docs/shell.md).
 */
async function spawnFresh(spec: SuperviseSpec): Promise<PipedChild | null> {
  const devNull = spec.stdin ? null : openSync('/dev/null', 'r');
  try {
    return await spawnPiped(spec.file, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      pipes: 5,
      fds: { ...(devNull === null ? {} : { 0: devNull }), ...(spec.block ? { 4: spec.block.read } : {}) },
    });
  } finally {
    if (devNull !== null) closeSync(devNull);
  }
}

/**
 * Runs one sandboxed command to the end: captures both streams, enforces the wall and idle
 * timeouts and the output cap, and on any stop signals the command's process group, waits
 * `graceMs`, then kills the pid namespace's init (or the process group and the cgroup without
 * bubblewrap). Resolves only when no process of the sandbox is left.
 */
export async function supervise(spec: SuperviseSpec): Promise<Supervised> {
  const notes: string[] = [];
  const started = performance.now();
  const captures: Record<StreamName, StreamCapture> = {
    stdout: new StreamCapture({
      name: 'stdout',
      headBytes: spec.previewHeadBytes,
      tailBytes: spec.previewTailBytes,
      capBytes: spec.outputCapBytes,
      secrets: spec.secrets,
      openArtifact: spec.openArtifact ? () => (spec.openArtifact as (s: StreamName) => ArtifactWriter)('stdout') : null,
    }),
    stderr: new StreamCapture({
      name: 'stderr',
      headBytes: spec.previewHeadBytes,
      tailBytes: spec.previewTailBytes,
      capBytes: spec.outputCapBytes,
      secrets: spec.secrets,
      openArtifact: spec.openArtifact ? () => (spec.openArtifact as (s: StreamName) => ArtifactWriter)('stderr') : null,
    }),
  };

  let stopReason: StopReason | null = null;
  let init: { pid: number; start: string } | null = null;
  let child: ChildProcess | PipedChild | null = null;
  let graceTimer: NodeJS.Timeout | undefined;
  let wallTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let lastOutput = performance.now();
  let seq = 0;
  let joinFailed: string | null = null;

  let released = false;

  const killHard = (): void => {
    if (init) sendSignal(init.pid, 'SIGKILL');
    const proc = child;
    if (proc?.pid !== undefined) {
      if (spec.mode === 'process') sendSignal(-proc.pid, 'SIGKILL');
      // An init bubblewrap has not reported may exist already: it goes with the wrapper (teardown.ts).
      else if (!init) void killWithChildren(proc.pid, () => proc.exitCode === null && proc.signalCode === null);
      else sendSignal(proc.pid, 'SIGKILL');
    }
    for (const pid of spec.cgroups?.members() ?? []) sendSignal(pid, 'SIGKILL');
  };

  const terminate = (): void => {
    if (spec.mode === 'bwrap') {
      // Before the release there is no command yet to be gentle with.
      if (!init || !released) return killHard();
      // --new-session makes the init a session and group leader, and the command is forked
      // into its group: this reaches the command and every descendant that kept the group.
      // The init itself ignores it (a namespace init only gets signals it handles).
      sendSignal(-init.pid, 'SIGTERM');
    } else if (child?.pid !== undefined) sendSignal(-child.pid, 'SIGTERM');
    graceTimer = setTimeout(killHard, spec.graceMs);
  };

  const stop = (reason: StopReason): void => {
    if (stopReason !== null) return;
    stopReason = reason;
    clearTimeout(wallTimer);
    clearTimeout(idleTimer);
    if (child) terminate();
  };

  /**
   * The wall and idle timers, (re)started at the spawn and again at the release: the wait before
   * the release (onSpawn, which may also read the work tree's status first; the cgroup join) is
   * bounded by timeoutMs of its own, and does not eat into the command's.
   */
  const startTimers = (): void => {
    if (stopReason !== null) return;
    clearTimeout(wallTimer);
    clearTimeout(idleTimer);
    lastOutput = performance.now();
    wallTimer = setTimeout(() => stop('timeout'), spec.timeoutMs);
    if (spec.idleTimeoutMs === null) return;
    const idleMs = spec.idleTimeoutMs;
    const arm = (ms: number): void => {
      idleTimer = setTimeout(() => {
        const quiet = performance.now() - lastOutput;
        if (quiet >= idleMs) stop('idle_timeout');
        else arm(idleMs - quiet);
      }, ms);
    };
    arm(idleMs);
  };

  const onAbort = (): void => stop(stopReasonOf(spec.signal as AbortSignal));
  if (spec.signal?.aborted) onAbort();
  spec.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    if (stopReason !== null) return finish(null, null, false);
    // The intent's durable write (markSent) overlaps bubblewrap's setup: the command itself
    // waits for it on the block fd, so nothing of the effect starts before it is durable.
    let sentError: { error: unknown } | null = null;
    const sent = spec.mode === 'bwrap' ? Promise.resolve().then(() => spec.onSpawn?.()) : null;
    sent?.catch((error: unknown) => {
      sentError = { error };
      killHard();
    });
    if (!sent) await spec.onSpawn?.();
    const settleSent = async (): Promise<void> => {
      await sent?.catch(() => {});
      if (sentError) throw (sentError as { error: unknown }).error;
    };
    try {
      child = spec.spare ? spec.spare.start() : ((spec.mode === 'bwrap' && spec.user === null ? await spawnFresh(spec) : null) ?? spawn(spec.file, [...spec.args], {
        cwd: spec.cwd,
        env: { ...spec.env },
        ...(spec.user ? { uid: spec.user.uid, gid: spec.user.gid } : {}),
        stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', ...(spec.mode === 'bwrap' ? ['pipe' as const, spec.block?.read ?? ('pipe' as const)] : (['ignore'] as const))],
        // Without bubblewrap the process group is what teardown kills. Under it the namespace is,
        // and a setsid here costs ~4 ms per spawn (measured in bench/exec).
        detached: spec.mode === 'process',
      }));
    } catch (e) {
      notes.push(`spawn failed: ${(e as Error).message}`);
      await settleSent();
      return finish(null, null, true);
    }
    spec.block?.closeRead(); // the wrapper holds its own copy now
    const proc = child;
    const exited =
      spec.spare?.exited ??
      new Promise<{ code: number | null; signal: NodeJS.Signals | null; error: Error | null }>((resolve) => {
        proc.once('error', (error) => resolve({ code: null, signal: null, error }));
        proc.once('exit', (code, signal) => resolve({ code, signal, error: null }));
      });
    const closed = (s: Readable | null): Promise<void> =>
      new Promise((resolve) => {
        if (!s) return resolve();
        s.once('close', () => resolve());
      });

    if (proc.stdin && spec.stdin && !spec.spare) {
      proc.stdin.on('error', () => {}); // EPIPE: the command did not read all of its input
      proc.stdin.end(spec.stdin);
    }
    for (const name of ['stdout', 'stderr'] as const) {
      const s = proc[name];
      const cap = captures[name];
      s?.on('error', (e) => notes.push(`${name} read failed: ${e.message}`));
      s?.on('data', (chunk: Buffer) => {
        failpoint('during_effect'); // the command runs and has written output
        lastOutput = performance.now();
        spec.onChunk?.({ stream: name, seq: seq++, at_ms: Math.round(lastOutput - started), bytes: chunk.length });
        if (cap.push(chunk)) stop('output_limit');
      });
    }
    const streamsClosed = Promise.all([closed(proc.stdout), closed(proc.stderr)]);

    // Lets bubblewrap start the command once its init is in the cgroups.
    // Lets bubblewrap start the command once its init is in the cgroups (a spare's was born
    // there) and the intent is durable.
    const release = (pid: number): void => {
      const block = spec.block ? null : (proc.stdio[spec.spare ? spec.spare.blockFd : 4] as Writable | null);
      block?.on('error', () => {}); // bubblewrap already gone
      const go = (): void => {
        if (stopReason !== null || sentError !== null) return;
        released = true;
        // The command's own time starts now: what held it (onSpawn, the join) had its own bound.
        startTimers();
        if (spec.block) spec.block.release();
        else block?.end('x');
      };
      const joined = spec.joinInit
        ? spec.joinInit(pid).catch((e: unknown) => {
            joinFailed = `the sandbox could not join its cgroups: ${(e as Error).message}`;
            throw e;
          })
        : null;
      Promise.all([joined, sent]).then(go, () => killHard());
    };
    if (spec.mode === 'bwrap') {
      let info = '';
      const infoStream = proc.stdio[3] as Readable | null;
      infoStream?.on('data', (d: Buffer) => {
        info += d.toString('utf8');
        if (init) return;
        try {
          const pid = (JSON.parse(info) as Record<string, unknown>)['child-pid'];
          const stat = typeof pid === 'number' ? processStat(pid) : null;
          if (typeof pid === 'number' && stat) {
            init = { pid, start: stat.start };
            if (stopReason !== null) terminate();
            else release(pid);
          }
        } catch {
          // not the whole document yet
        }
      });
      infoStream?.on('error', () => {});
    }
    if (stopReason !== null) terminate();

    startTimers();

    const exit = await exited;
    clearTimeout(wallTimer);
    clearTimeout(idleTimer);
    if (exit.error) notes.push(`spawn failed: ${exit.error.message}`);
    // Whatever the command left behind goes now: in bubblewrap its init dies with the wrapper
    // (--die-with-parent); without it, the process group and the cgroup are killed.
    const initPid = (init as { pid: number } | null)?.pid;
    const leftovers = spec.cgroups?.members().filter((p) => p !== initPid).length ?? 0;
    if (spec.mode === 'process') killHard();
    if (!(await settlesWithin(streamsClosed, spec.mode === 'process' ? DRAIN_LIMIT_MS : null))) {
      notes.push('a process outside the process group held the output open; without bubblewrap or a cgroup it could not be ended');
      proc.stdout?.destroy();
      proc.stderr?.destroy();
    }
    await waitUntilEmpty(init, () => spec.cgroups?.members() ?? [], killHard, notes);
    await settleSent();
    if (joinFailed) notes.push(joinFailed);
    const setupFailed = exit.error !== null || joinFailed !== null || (spec.mode === 'bwrap' && init === null && exit.code === SETUP_FAILED);
    return finish(exit.code, exit.signal, setupFailed, stopReason === null ? leftovers : 0);
  } finally {
    clearTimeout(graceTimer);
    clearTimeout(wallTimer);
    clearTimeout(idleTimer);
    spec.signal?.removeEventListener('abort', onAbort);
    for (const c of Object.values(captures)) c.abort();
  }

  function finish(code: number | null, sig: NodeJS.Signals | null, setupFailed: boolean, killedAfterExit = 0): Supervised {
    clearTimeout(graceTimer);
    let exit_code = code;
    let signal = sig;
    // bubblewrap reports a command killed by signal N as exit status 128 + N.
    if (spec.mode === 'bwrap' && code !== null && code > 128 && code <= 128 + 64 && !setupFailed) {
      const name = signalName(code - 128);
      if (name) {
        exit_code = null;
        signal = name;
      }
    }
    const reason: ExitReason = setupFailed ? 'spawn_failed' : (stopReason ?? (signal !== null ? 'signaled' : 'exited'));
    if (setupFailed) exit_code = null;
    const stdout = captures.stdout.finish();
    const stderr = captures.stderr.finish();
    for (const c of [captures.stdout, captures.stderr]) if (c.artifactError) notes.push(c.artifactError);
    return {
      exit_code,
      signal,
      reason,
      duration_ms: Math.round(performance.now() - started),
      stdout,
      stderr,
      killed_after_exit: killedAfterExit,
      notes,
    };
  }
}
