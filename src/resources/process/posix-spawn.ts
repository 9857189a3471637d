// libc's posix_spawn through koffi, shared by spawn-child.ts (ripgrep, git) and the sandbox's
// spawn-piped.ts (its wrappers). Why not child_process.spawn: libuv starts a child with fork(),
// which copies the page tables of the runtime (a few hundred MB) and holds the event loop
// meanwhile (2–13 ms measured); glibc's posix_spawn uses clone(CLONE_VM | CLONE_VFORK): nothing
// is copied. The caller builds the file actions (which descriptors the child gets); this module
// owns the rest: every signal at its default disposition and none blocked in the child (Node
// ignores SIGPIPE, libuv resets that in its children; so do we), the call on libuv's thread pool
// (posix_spawn returns once the child has exec'ed, and on a loaded machine the wait for the
// child to be scheduled held the calling thread, up to ~10 ms measured), and its errno as a
// Node-style error.
import { constants } from 'node:os';
import { libcFunction } from '../paths/libc.js';

type Num = (...args: unknown[]) => number;
type Async = Num & { async: (...args: unknown[]) => void };

const SIGNATURES = {
  pipe2: 'int pipe2(int *fds, int flags)',
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
export type SpawnLibc = { readonly [K in keyof typeof SIGNATURES]: K extends 'waitpid' | 'spawnp' ? Async : Num };

// glibc's <spawn.h>, <fcntl.h>, <sys/socket.h> and <sys/wait.h> on Linux.
const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
export const O_CLOEXEC = 0o2000000;
export const O_RDONLY = 0;
export const AF_UNIX = 1;
export const SOCK_STREAM = 1;
export const WNOHANG = 1;
/** Larger than glibc's posix_spawn_file_actions_t (80 bytes), posix_spawnattr_t (336) and sigset_t (128). */
const OPAQUE_BYTES = 1024;
const signalNames = new Map<number, NodeJS.Signals>(Object.entries(constants.signals).map(([name, n]) => [n, name as NodeJS.Signals]));

let bound: SpawnLibc | null | undefined;
/** The bound functions, once per process; null off Linux or when koffi or one of them is missing. */
export function spawnLibc(): SpawnLibc | null {
  if (bound !== undefined) return bound;
  if (process.platform !== 'linux') return (bound = null);
  const out: Partial<Record<keyof typeof SIGNATURES, unknown>> = {};
  for (const [k, sig] of Object.entries(SIGNATURES)) {
    const fn = libcFunction<Num>(sig);
    if (fn === null) return (bound = null);
    out[k as keyof typeof SIGNATURES] = fn;
  }
  return (bound = out as SpawnLibc);
}

export function check(rc: number, what: string): void {
  if (rc !== 0) throw new Error(`${what} failed: ${rc}`);
}

/**
 * Starts `file` (searched in PATH) with `args` and exactly `env` ("K=V"), with the file actions
 * `addActions` puts in (dup2, open, chdir); resolves with its pid once it has exec'ed, or rejects
 * with the errno (`code` ENOENT, …). The actions and attributes are destroyed here either way.
 * `onPool: false` calls posix_spawn on this thread: the child's parent thread is then the event
 * loop's, as with child_process.spawn. That matters to a child that dies with its parent
 * (bubblewrap's --die-with-parent is PR_SET_PDEATHSIG, which follows the parent *thread*).
 */
export async function posixSpawn(
  c: SpawnLibc,
  file: string,
  args: readonly string[],
  env: readonly string[],
  addActions: (actions: Buffer) => void,
  o: { readonly onPool?: boolean } = {},
): Promise<number> {
  const actions = Buffer.alloc(OPAQUE_BYTES);
  const attr = Buffer.alloc(OPAQUE_BYTES);
  let actionsReady = false;
  let attrReady = false;
  try {
    check(c.faInit(actions), 'posix_spawn_file_actions_init');
    actionsReady = true;
    addActions(actions);
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
    const argv = [file, ...args, null];
    const envp = [...env, null];
    const rc =
      o.onPool === false
        ? c.spawnp(pid, file, actions, attr, argv, envp)
        : await new Promise<number>((resolve, reject) => c.spawnp.async(pid, file, actions, attr, argv, envp, (e: unknown, n: number) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve(n))));
    if (rc !== 0) {
      const e = new Error(`posix_spawnp ${file}: ${rc}`) as NodeJS.ErrnoException;
      e.errno = -rc;
      e.code = Object.entries(constants.errno).find(([, n]) => n === rc)?.[0] ?? `E${rc}`;
      throw e;
    }
    return pid[0] as number;
  } finally {
    if (actionsReady) c.faDestroy(actions);
    if (attrReady) c.attrDestroy(attr);
  }
}

/** waitpid's status as an exit code or a signal name. */
export function exitOf(status: number): { readonly code: number | null; readonly signal: NodeJS.Signals | null } {
  const sig = status & 0x7f;
  return sig === 0 ? { code: (status >> 8) & 0xff, signal: null } : { code: null, signal: signalNames.get(sig) ?? null };
}
