// The last phase of a sandboxed run: waiting, with bounds, until nothing of it is left.
import { childrenOf, isGone, processStat, sendSignal } from './process-table.js';

/** The namespace's init usually dies within a millisecond of the wrapper. */
const GONE_POLL_MS = 1;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** True when `p` settles within `ms` (null: wait as long as it takes); the timer never outlives it. */
export async function settlesWithin(p: Promise<unknown>, ms: number | null): Promise<boolean> {
  if (ms === null) {
    await p;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a wrapper may take to stop before its children are read anyway. */
const STOP_WAIT_MS = 1_000;

/**
 * Kills a wrapper whose bubblewrap may have cloned the sandbox's init without having reported it
 * (the info fd not read yet), and that init with it. bubblewrap's init sets no parent-death
 * signal until it is released from its block fd, and is not in the run's cgroups before it is
 * reported and joined: killing the wrapper alone left it waiting, outside every group, holding the
 * run's output open (the call never returned; CI saw it as a cancelled shell.exec whose
 * process was left). The wrapper is stopped first (SIGSTOP), so that it clones nothing more
 * (a clone in progress completes or restarts before the stop), then its children and it get
 * SIGKILL. `alive` says whether the wrapper is still unreaped: once reaped, its pid may name
 * another process, so nothing is sent after it turns false.
 */
export async function killWithChildren(pid: number, alive: () => boolean): Promise<void> {
  if (!alive()) return;
  sendSignal(pid, 'SIGSTOP');
  const until = performance.now() + STOP_WAIT_MS;
  while (alive() && processStat(pid)?.state !== 'T' && performance.now() < until) await sleep(GONE_POLL_MS);
  if (!alive()) return;
  for (const c of childrenOf(pid)) sendSignal(c, 'SIGKILL');
  sendSignal(pid, 'SIGKILL');
}

/** Returns once the pid namespace's init is gone and the cgroup is empty, killing again if anything lingers. */
export async function waitUntilEmpty(init: { pid: number; start: string } | null, members: () => number[], killHard: () => void, notes: string[]): Promise<void> {
  const started = performance.now();
  let lastKill = started;
  for (;;) {
    const initGone = init === null || isGone(init.pid, init.start);
    const left = members();
    if (initGone && left.length === 0) return;
    const now = performance.now();
    if (now - lastKill >= 100) {
      lastKill = now;
      killHard();
    }
    if (now - started > 10_000) {
      notes.push(`processes still present after teardown: ${left.join(' ')}`);
      return;
    }
    await sleep(GONE_POLL_MS);
  }
}
