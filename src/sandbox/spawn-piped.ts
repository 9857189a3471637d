// A child with N socket pairs for its fds 0..N-1, started with libc's posix_spawn (through koffi)
// instead of child_process.spawn; used for the sandbox's wrapper (spare.ts, supervise.ts).
//
// Why: libuv starts a child with fork(), which copies the page tables of the runtime (~330 MB
// here) and holds the event loop meanwhile: 3.8 ms median, 8 ms p90 for the spare's shell with
// seven pipes, measured in a runtime that had run shell.exec (bench/exec). The spare is started
// after each run, as the next call begins, so that fork was on the next call's path. glibc's
// posix_spawn uses clone(CLONE_VM | CLONE_VFORK): nothing is copied (the same reason ripgrep and
// git start this way, src/resources/process/spawn-child.ts).
//
// What the child gets is what child_process.spawn with `stdio: Array(N).fill('pipe')` gives it
// (fd 0 may be /dev/null, as with 'ignore'):
// one end of a socket pair at each of its fds 0..N-1 (the other end here, as a net.Socket), every
// other descriptor closed at exec (all of ours are close-on-exec), every signal at its default
// disposition and none blocked, the given cwd and environment. Its exit is found with waitpid
// (WNOHANG) at each SIGCHLD, for the pids started here only (libuv reaps only its own), and told
// as `exit` (code, signal) like a ChildProcess. Node's signal listeners do not hold the event
// loop open, so while a referenced child lives a referenced interval does (it also checks every
// 250 ms, should a SIGCHLD be missed); `unref()` lets the loop end without it, as a ChildProcess. Returns null where posix_spawn is not reachable
// (no koffi, another libc): the caller then uses child_process.spawn. A different uid or gid
// is not supported (posix_spawn cannot set them): the caller uses child_process.spawn for it.
import { EventEmitter } from 'node:events';
import { closeSync } from 'node:fs';
import { Socket } from 'node:net';
import { constants } from 'node:os';
import { libcFunction } from '../resources/index.js';

type Num = (...args: unknown[]) => number;
type Async = Num & { async: (...args: unknown[]) => void };

const SIGNATURES = {
  socketpair: 'int socketpair(int domain, int type, int protocol, int *fds)',
  spawnp: 'int posix_spawnp(int *pid, const char *file, void *actions, void *attr, const char **argv, const char **envp)',
  faInit: 'int posix_spawn_file_actions_init(void *actions)',
  faDestroy: 'int posix_spawn_file_actions_destroy(void *actions)',
  faDup2: 'int posix_spawn_file_actions_adddup2(void *actions, int fd, int newfd)',
  faOpen: 'int posix_spawn_file_actions_addopen(void *actions, int fd, const char *path, int oflag, int mode)',
  faChdir: 'int posix_spawn_file_actions_addchdir_np(void *actions, const char *path)',
  attrInit: 'int posix_spawnattr_init(void *attr)',
  attrDestroy: 'int posix_spawnattr_destroy(void *attr)',
  attrFlags: 'int posix_spawnattr_setflags(void *attr, short flags)',
  attrSigDefault: 'int posix_spawnattr_setsigdefault(void *attr, const void *set)',
  attrSigMask: 'int posix_spawnattr_setsigmask(void *attr, const void *set)',
  sigfillset: 'int sigfillset(void *set)',
  sigemptyset: 'int sigemptyset(void *set)',
  waitpid: 'int waitpid(int pid, int *status, int options)',
} as const;
type Libc = { [K in keyof typeof SIGNATURES]: K extends 'spawnp' ? Async : Num };

const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_CLOEXEC = 0o2000000;
const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
const WNOHANG = 1;
/** Larger than glibc's posix_spawn_file_actions_t (80 bytes), posix_spawnattr_t (336) and sigset_t (128). */
const OPAQUE_BYTES = 1024;
const signalNames = new Map<number, NodeJS.Signals>(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

let bound: Libc | null | undefined;
function libc(): Libc | null {
  if (bound !== undefined) return bound;
  if (process.platform !== 'linux') return (bound = null);
  const out: Partial<Record<keyof typeof SIGNATURES, unknown>> = {};
  for (const [k, sig] of Object.entries(SIGNATURES)) {
    const fn = libcFunction<Num>(sig);
    if (fn === null) return (bound = null);
    out[k as keyof typeof SIGNATURES] = fn;
  }
  return (bound = out as Libc);
}

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
  const c = bound as Libc;
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
    const sig = status & 0x7f;
    if (sig === 0) this.exitCode = (status >> 8) & 0xff;
    else this.signalCode = signalNames.get(sig) ?? null;
    this.emit('exit', this.exitCode, this.signalCode);
  }
}

/** Whether spawnPiped can start children here. */
export function hasSpawnPiped(): boolean {
  return libc() !== null;
}

/**
 * Starts `file` (searched in PATH) with `args`, socket pairs at its fds 0..pipes-1 (fd 0 from
 * /dev/null instead with `stdinNull`, as `stdio: 'ignore'` gives), `cwd` and exactly `env`;
 * null when posix_spawn is not reachable here. Rejects when the start fails.
 * posix_spawn runs on libuv's thread pool: it returns once the child has exec'ed, and on a
 * loaded machine the wait for the child to be scheduled held the event loop (2 ms median,
 * 7 ms p90 measured at load 3; 8.9 ms for child_process.spawn then). Listen for `exit` as soon as
 * it resolves: it is told on a later turn of the event loop, but may be before the next await ends.
 */
export async function spawnPiped(
  file: string,
  args: readonly string[],
  o: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly pipes: number; readonly stdinNull?: boolean },
): Promise<PipedChild | null> {
  const c = libc();
  if (c === null) return null;
  const ours: number[] = [];
  const theirs: number[] = [];
  const first = o.stdinNull ? 1 : 0;
  const actions = Buffer.alloc(OPAQUE_BYTES);
  const attr = Buffer.alloc(OPAQUE_BYTES);
  let actionsReady = false;
  let attrReady = false;
  const check = (rc: number, what: string): void => {
    if (rc !== 0) throw new Error(`${what} failed: ${rc}`);
  };
  try {
    for (let i = first; i < o.pipes; i++) {
      const pair = new Int32Array(2);
      check(c.socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 'socketpair');
      ours.push(pair[0] as number);
      theirs.push(pair[1] as number);
    }
    // Each dup2 below must not overwrite a child end still to be placed: Node holds fds 0..2 and
    // its own handles, so new ones are numbered above the pipes; otherwise child_process it is.
    if (theirs.some((fd) => fd < o.pipes)) return null;
    check(c.faInit(actions), 'posix_spawn_file_actions_init');
    actionsReady = true;
    if (o.stdinNull) check(c.faOpen(actions, 0, '/dev/null', 0 /* O_RDONLY */, 0), 'addopen');
    // dup2 onto another number clears close-on-exec on the copy only.
    for (let i = first; i < o.pipes; i++) check(c.faDup2(actions, theirs[i - first], i), 'adddup2');
    check(c.faChdir(actions, o.cwd), 'addchdir');
    check(c.attrInit(attr), 'posix_spawnattr_init');
    attrReady = true;
    const all = Buffer.alloc(OPAQUE_BYTES);
    const none = Buffer.alloc(OPAQUE_BYTES);
    check(c.sigfillset(all), 'sigfillset');
    check(c.sigemptyset(none), 'sigemptyset');
    check(c.attrSigDefault(attr, all), 'setsigdefault');
    check(c.attrSigMask(attr, none), 'setsigmask');
    check(c.attrFlags(attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK), 'setflags');
    const pid = new Int32Array(1);
    const env = Object.entries(o.env).map(([k, v]) => `${k}=${v}`);
    // Listening before the start: a child that exits at once is still reaped.
    if (!listening) {
      process.on('SIGCHLD', onSigchld);
      listening = true;
    }
    const rc = await new Promise<number>((resolve, reject) =>
      c.spawnp.async(pid, file, actions, attr, [file, ...args, null], [...env, null], (e: unknown, n: number) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve(n))),
    );
    if (rc !== 0) {
      const e = new Error(`posix_spawnp ${file}: ${rc}`) as NodeJS.ErrnoException;
      e.code = Object.entries(constants.errno).find(([, n]) => n === rc)?.[0] ?? `E${rc}`;
      throw e;
    }
    // The child holds its ends now.
    for (const fd of theirs.splice(0)) closeSync(fd);
    const stdio: (Socket | null)[] = [...(o.stdinNull ? [null] : []), ...ours.splice(0).map((fd) => new Socket({ fd, readable: true, writable: true }))];
    const child = new PipedChild(pid[0] as number, stdio);
    live.set(child.pid, child);
    hold();
    setImmediate(onSigchld); // it may have exited before the listener saw its SIGCHLD
    return child;
  } finally {
    for (const fd of [...ours, ...theirs]) closeSync(fd);
    if (actionsReady) c.faDestroy(actions);
    if (attrReady) c.attrDestroy(attr);
    if (live.size === 0 && listening) {
      process.removeListener('SIGCHLD', onSigchld);
      listening = false;
    }
  }
}
