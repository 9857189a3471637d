// The last phase of a sandboxed run: waiting, with bounds, until nothing of it is left.
import { isGone } from './process-table.js';

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
