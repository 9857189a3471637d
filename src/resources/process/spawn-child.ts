// ripgrep and git started with libc's posix_spawn (through koffi) instead of child_process.spawn.
//
// Why: libuv starts a child with fork(), which copies the page tables of this process (a runtime
// of a few hundred MB) and holds the event loop meanwhile: 2–13 ms a ripgrep run here, the
// largest single cost of a first page of matches that ripgrep itself answers in ~5 ms; ~7 ms
// for each of the four git runs that list fs.search's candidates anew after a change. glibc's
// posix_spawn uses clone(CLONE_VM | CLONE_VFORK): nothing is copied, and the call returns once
// the child has exec'ed ripgrep (~0.1 ms measured in the same process).
//
// What the child gets is what runChild gives it: stdin /dev/null, stdout and stderr pipes read
// here, the searched files' descriptors at their own numbers (closed here once it holds them),
// every signal at its default disposition and none blocked (Node ignores SIGPIPE and libuv
// resets that in its children; so do we), every other descriptor closed at exec (Node's and
// ours are all close-on-exec). It is killed with SIGKILL on abort or when the caller stops
// reading, and always reaped (waitpid) before the promise settles: no process outlives the
// call, and no zombie is left. libuv reaps only the pids it started, so it never takes ours.
// Without koffi or these functions, the caller falls back to runChild.
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import { check, exitOf, O_CLOEXEC, O_RDONLY, posixSpawn, spawnLibc, WNOHANG, type SpawnLibc } from './posix-spawn.js';
import type { ChildOptions, ChildResult } from './child-types.js';

/** Whether children start through posix_spawn here (for tests and the fallback). */
export function hasPosixSpawn(): boolean {
  return spawnLibc() !== null;
}

const STDERR_LIMIT = 64 * 1024;

/**
 * Starts `command` with `fds` open in it at the same numbers, and both output pipes; returns the
 * pid and our pipe ends. Our copies of `fds` are closed here, whatever happens.
 */
async function start(c: SpawnLibc, command: string, args: readonly string[], opts: ChildOptions): Promise<{ pid: number; out: number; err: number }> {
  const fds = opts.fds ?? [];
  const mine: number[] = [];
  try {
    const out = new Int32Array(2);
    check(c.pipe2(out, O_CLOEXEC), 'pipe2');
    mine.push(out[0] as number, out[1] as number);
    const err = new Int32Array(2);
    check(c.pipe2(err, O_CLOEXEC), 'pipe2');
    mine.push(err[0] as number, err[1] as number);
    const env = Object.entries(opts.env ?? process.env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${v as string}`);
    const pid = await posixSpawn(c, command, args, env, (actions) => {
      // Standard streams first: a pipe end inside the target range is then free to be overwritten.
      check(c.faOpen(actions, 0, '/dev/null', O_RDONLY, 0), 'addopen');
      check(c.faDup2(actions, out[1], 1), 'adddup2');
      check(c.faDup2(actions, err[1], 2), 'adddup2');
      // dup2 onto itself clears close-on-exec (POSIX 2008 TC2, glibc >= 2.29): the child holds the
      // file at the same number, and no dup2 can overwrite a descriptor another one still needs.
      for (const fd of fds) check(c.faDup2(actions, fd, fd), 'adddup2');
      check(c.faChdir(actions, opts.cwd), 'addchdir');
    });
    // The child holds its copies (it has exec'ed): ours of the write ends go now.
    closeSync(out[1] as number);
    closeSync(err[1] as number);
    mine.length = 0;
    return { pid, out: out[0] as number, err: err[0] as number };
  } finally {
    for (const fd of fds) closeSync(fd);
    for (const fd of mine) closeSync(fd);
  }
}

/**
 * runChild's contract (see resources/process/child.ts) through posix_spawn, except that `fds`
 * keep their numbers in the child (fd n is the child's fd n, `/proc/self/fd/<n>` there); null
 * when this host lacks posix_spawn through koffi.
 */
export function spawnChild(command: string, args: readonly string[], opts: ChildOptions): Promise<ChildResult> | null {
  const c = spawnLibc();
  if (c === null) return null;
  if (opts.signal.aborted) {
    for (const fd of opts.fds ?? []) closeSync(fd);
    return Promise.resolve({ code: null, signal: null, stderr: '', killed: true });
  }
  return start(c, command, args, opts).then((child) => watch(c, child, opts));
}

/** Reads the child's output until it ends or is stopped, then reaps it. */
function watch(c: SpawnLibc, child: { pid: number; out: number; err: number }, opts: ChildOptions): Promise<ChildResult> {
  return new Promise<ChildResult>((resolve, reject) => {
    // Pipes wrapped as libuv streams (read as they come, on the event loop).
    const out = new Socket({ fd: child.out, readable: true, writable: false });
    const err = new Socket({ fd: child.err, readable: true, writable: false });
    let killed = false;
    let reaped = false;
    let stderr = '';
    let open = 2;
    const kill = (): void => {
      if (killed || reaped) return;
      killed = true;
      // The pid is ours until it is reaped below: it cannot name another process yet.
      process.kill(child.pid, 'SIGKILL');
      out.destroy();
      err.destroy();
    };
    const settle = (status: number): void => {
      reaped = true;
      opts.signal.removeEventListener('abort', kill);
      resolve({ ...exitOf(status), stderr, killed });
    };
    const reap = (): void => {
      const status = new Int32Array(1);
      // Usually gone once both pipes closed; otherwise wait for it off the event loop.
      const now = c.waitpid(child.pid, status, WNOHANG);
      if (now === child.pid) return settle(status[0] as number);
      c.waitpid.async(child.pid, status, 0, (e: unknown, pid: number) => {
        if (e || pid !== child.pid) reject(e instanceof Error ? e : new Error(`waitpid ${child.pid}: ${pid}`));
        else settle(status[0] as number);
      });
    };
    const closed = (): void => {
      if (--open === 0) reap();
    };
    opts.signal.addEventListener('abort', kill, { once: true });
    // Aborted while it started: stopped at once (and still reaped).
    if (opts.signal.aborted) kill();
    out.on('data', (chunk: Buffer) => {
      if (killed) return;
      if (opts.onStdout(chunk) === false) kill();
    });
    err.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk.toString('utf8');
    });
    // A read error ends the stream like its end: the child is still reaped.
    out.on('error', () => undefined);
    err.on('error', () => undefined);
    out.once('close', closed);
    err.once('close', closed);
  });
}
