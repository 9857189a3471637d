import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
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
