// A child with N socket pairs for its fds 0..N-1 (or descriptors the caller gives at some of
// those numbers: a block pipe, /dev/null), started with libc's posix_spawn
// (src/resources/process/posix-spawn.ts, which says why: no fork of the runtime on the event
// loop) instead of child_process.spawn; used for the sandbox's wrappers (spare.ts, supervise.ts). For the spare's shell with seven pipes, Node's
// spawn took 3.8 ms median, 8 ms p90 in a runtime of ~330 MB that had run shell.exec.
//
// What the child gets is what child_process.spawn with `stdio: Array(N).fill('pipe')` gives it:
// one end of a socket pair at each of its fds 0..N-1 (the other end here, as a net.Socket), every
// other descriptor closed at exec (all of ours are close-on-exec), the given cwd and environment.
// Its exit is found with waitpid (WNOHANG) at each SIGCHLD, for the pids started here only
// (libuv reaps only its own), and told as `exit` (code, signal) like a ChildProcess. Node's
// signal listeners do not hold the event loop open, so while a referenced child lives a
// referenced interval does (it also checks every 250 ms, should a SIGCHLD be missed); `unref()`
// lets the loop end without it, as a ChildProcess. Returns null where posix_spawn is not
// reachable (no koffi, another libc): the caller then uses child_process.spawn, as it does for
// another uid or gid (posix_spawn cannot set them).
import { EventEmitter } from 'node:events';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import { AF_UNIX, checkLibc as check, exitOf, O_CLOEXEC, posixSpawn, SOCK_STREAM, spawnLibc, WNOHANG, type SpawnLibc } from '../resources/index.js';

/** The children started here and not yet reaped, checked at each SIGCHLD. */
const live = new Map<number, PipedChild>();
let listening = false;
let holder: NodeJS.Timeout | null = null;

/** Holds the event loop open while a referenced child lives (signal listeners do not). */
function hold(): void {
  const wanted = [...live.values()].some((c) => c.referenced);
  if (live.size === 0) {
    if (holder) clearInterval(holder);
    holder = null;
    return;
  }
  holder ??= setInterval(onSigchld, 250);
  if (wanted) holder.ref();
  else holder.unref();
}

function onSigchld(): void {
  const c = spawnLibc() as SpawnLibc;
  const status = new Int32Array(1);
  for (const [pid, child] of live) {
    // Ours until reaped here: the pid cannot name another process before that.
    if (c.waitpid(pid, status, WNOHANG) !== pid) continue;
    live.delete(pid);
    child.reaped(status[0] as number);
  }
  if (live.size === 0 && listening) {
    process.removeListener('SIGCHLD', onSigchld);
    listening = false;
  }
  hold();
}

/** The part of a ChildProcess the spare and its supervisor use. */
export class PipedChild extends EventEmitter {
  readonly pid: number;
  readonly stdio: (Socket | null)[];
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  /** Whether it holds the event loop open (as a ChildProcess does until `unref()`). */
  referenced = true;

  constructor(pid: number, stdio: (Socket | null)[]) {
    super();
    this.pid = pid;
    this.stdio = stdio;
  }

  get stdin(): Socket | null {
    return this.stdio[0] ?? null;
  }
  get stdout(): Socket | null {
    return this.stdio[1] ?? null;
  }
  get stderr(): Socket | null {
    return this.stdio[2] ?? null;
  }

  /** The sockets hold the event loop open (or not); a child with none open holds nothing. */
  ref(): void {
    this.referenced = true;
    for (const s of this.stdio) s?.ref();
    hold();
  }
  unref(): void {
    this.referenced = false;
    for (const s of this.stdio) s?.unref();
    hold();
  }

  /** Called once with waitpid's status. */
  reaped(status: number): void {
    const { code, signal } = exitOf(status);
    this.exitCode = code;
    this.signalCode = signal;
    this.emit('exit', code, signal);
  }
}

/** Whether spawnPiped can start children here. */
export function hasSpawnPiped(): boolean {
  return spawnLibc() !== null;
}

/**
 * Starts `file` (searched in PATH) with `args`, socket pairs at its fds 0..pipes-1 (or the given
 * `fds`), `cwd` and exactly `env`; null when posix_spawn is not reachable here. Rejects when the
 * start fails. posix_spawn runs on the event loop's thread (bubblewrap's --die-with-parent
 * follows the parent thread) and returns once the child has exec'ed: 2 ms median, 7 ms p90
 * measured at load 3, against 8.9 ms for child_process.spawn then. Listen for `exit` as soon as
 * it resolves: it is told on a later turn of the event loop, but may be before the next await ends.
 */
export async function spawnPiped(
  file: string,
  args: readonly string[],
  o: {
    readonly cwd: string;
    readonly env: Readonly<Record<string, string>>;
    readonly pipes: number;
    /** Descriptors of ours the child gets at these numbers (below `pipes`) instead of a socket pair; stdio holds null there. */
    readonly fds?: Readonly<Record<number, number>>;
  },
): Promise<PipedChild | null> {
  const c = spawnLibc();
  if (c === null) return null;
  const ours: number[] = [];
  const theirs: number[] = [];
  try {
    const given = o.fds ?? {};
    for (let i = 0; i < o.pipes; i++) {
      if (given[i] !== undefined) continue;
      const pair = new Int32Array(2);
      check(c.socketpair(AF_UNIX, SOCK_STREAM | O_CLOEXEC, 0, pair), 'socketpair'); // SOCK_CLOEXEC is O_CLOEXEC
      ours[i] = pair[0] as number;
      theirs[i] = pair[1] as number;
    }
    const source = (i: number): number => given[i] ?? (theirs[i] as number);
    // Each dup2 below must not overwrite a child end still to be placed: Node holds fds 0..2 and
    // its own handles, so new ones are numbered above the pipes; otherwise child_process it is.
    if (Array.from({ length: o.pipes }, (_, i) => source(i)).some((fd) => fd < o.pipes)) return null;
    const env = Object.entries(o.env).map(([k, v]) => `${k}=${v}`);
    // Listening before the start: a child that exits at once is still reaped.
    if (!listening) {
      process.on('SIGCHLD', onSigchld);
      listening = true;
    }
    const pid = await posixSpawn(c, file, args, env, (actions) => {
      // dup2 onto another number clears close-on-exec on the copy only.
      for (let i = 0; i < o.pipes; i++) check(c.faDup2(actions, source(i), i), 'adddup2');
      check(c.faChdir(actions, o.cwd), 'addchdir');
    }, { onPool: false });
    // The child holds its ends now (the given ones stay the caller's).
    for (const fd of theirs.splice(0)) if (fd !== undefined) closeSync(fd);
    const stdio: (Socket | null)[] = Array.from({ length: o.pipes }, (_, i) => (ours[i] === undefined ? null : new Socket({ fd: ours[i] as number, readable: true, writable: true })));
    ours.splice(0);
    const child = new PipedChild(pid, stdio);
    live.set(child.pid, child);
    hold();
    setImmediate(onSigchld); // it may have exited before the listener saw its SIGCHLD
    return child;
  } finally {
    for (const fd of [...ours, ...theirs]) if (fd !== undefined) closeSync(fd);
    if (live.size === 0 && listening) {
      process.removeListener('SIGCHLD', onSigchld);
      listening = false;
    }
  }
}
