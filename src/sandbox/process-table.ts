import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { constants } from 'node:os';

/** Start time (clock ticks since boot) and state of a host process, or null when it is gone. */
export function processStat(pid: number): { start: string; state: string } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm may hold spaces and parentheses: the fields after it follow the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0] ?? '?', start: rest[19] ?? '' };
}

/** True once the process that had `start` is dead (gone, a zombie, or its pid reused). */
export function isGone(pid: number, start: string): boolean {
  const s = processStat(pid);
  return s === null || s.start !== start || s.state === 'Z' || s.state === 'X';
}

/** Whether this kernel has /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN). */
let childrenFile: boolean | null = null;

/**
 * The children of a host process, by host pid: from /proc/PID/task/TID/children (each thread's),
 * or, on a kernel built without that file (or with `scan`), from every process's parent.
 */
export function childrenOf(pid: number, scan = false): number[] {
  childrenFile ??= existsSync(`/proc/self/task/${process.pid}/children`);
  const out = new Set<number>();
  if (childrenFile && !scan) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      return [];
    }
    for (const tid of tasks) {
      try {
        for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (c.trim() !== '') out.add(Number(c));
      } catch {
        // the thread ended while we looked
      }
    }
    return [...out];
  }
  for (const name of readdirSync('/proc')) if (/^\d+$/.test(name) && parentOf(Number(name)) === pid) out.add(Number(name));
  return [...out];
}

/** The parent of a host process (from /proc/PID/stat), or null when it is gone. */
export function parentOf(pid: number): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Sends a signal, ignoring a target that is already gone. */
export function sendSignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/** `SIGTERM` for 15, or null when the number names no signal. */
export function signalName(n: number): NodeJS.Signals | null {
  for (const [name, num] of Object.entries(constants.signals)) if (num === n) return name as NodeJS.Signals;
  return null;
}

/**
 * Removes the folders in `dir` named `<prefix><pid>-…` whose process is gone: what a runtime
 * killed with SIGKILL leaves (a session's FIFOs, a browser profile, a proxy's socket folder). One
 * host's pids: the folders are this machine's (tmp, or a state dir of one host).
 */
export function sweepDeadOwners(dir: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || processStat(pid) !== null) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** This process's pid namespace (its inode number): pids are only comparable within one. */
export const PID_NAMESPACE = ((): string => {
  try {
    return /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    return '0';
  }
})();

const OWNER_MARK = /^TOOLGATE_SANDBOX_OF_(\d+)_(\d+)_(\d+)$/;
let ownMark: string | undefined;

/**
 * The name bubblewrap is told to `--unsetenv` in every sandbox this runtime starts: unset where
 * it was never set, it changes nothing inside, but it puts the owner (pid, start time, pid
 * namespace) on the command line of bubblewrap and of the init it clones, where
 * sweepOrphanedSandboxes finds it after the owner is gone.
 */
export function sandboxOwnerMark(): string {
  ownMark ??= `TOOLGATE_SANDBOX_OF_${process.pid}_${processStat(process.pid)?.start ?? '0'}_${PID_NAMESPACE}`;
  return ownMark;
}

/**
 * Ends the sandboxes of runtimes that died before releasing their command. bubblewrap's init
 * waits on its block fd, which never reaches end-of-file (block-fd.ts), with no parent-death
 * signal until its release; where the run's cgroups hold it, the cgroup sweep ends it
 * (cgroups.ts), but a host without a writable pids cgroup (cgroup v2 without delegation), or a
 * crash before a fresh wrapper's init joined its groups, left it asleep until reboot. Found by
 * the owner mark on its command line: a bubblewrap process whose owner, in this pid namespace, is
 * gone. It never started its command (its runtime's receipt is settled by reconcile). Returns
 * the pids it killed. `bwrap`: the path this host runs bubblewrap from (sandboxes are started
 * by it), besides any program named `bwrap`.
 */
export function sweepOrphanedSandboxes(bwrap: string | null = null): number[] {
  const killed: number[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return killed;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid === process.pid) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0');
    } catch {
      continue; // gone, or another user's
    }
    if (argv[0] !== bwrap && basename(argv[0] ?? '') !== 'bwrap') continue;
    let owner: RegExpExecArray | null = null;
    for (let i = 1; i + 1 < argv.length && owner === null; i++) if (argv[i] === '--unsetenv') owner = OWNER_MARK.exec(argv[i + 1] as string);
    // A mark without its owner's start time (`0`: /proc unreadable to it) is never judged: its pid alone may be reused.
    if (owner === null || owner[2] === '0' || owner[3] !== PID_NAMESPACE || !isGone(Number(owner[1]), owner[2] as string)) continue;
    try {
      // Stopped first, so that it clones nothing more while its children are killed.
      sendSignal(pid, 'SIGSTOP');
      for (const child of childrenOf(pid)) sendSignal(child, 'SIGKILL');
      sendSignal(pid, 'SIGKILL');
      killed.push(pid);
    } catch {
      // another user's: not ours to end
    }
  }
  return killed;
}
