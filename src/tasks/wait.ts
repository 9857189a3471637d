// task.wait: a task waits for others of its tree to end, as an edge of the wait-for graph in the
// store. An edge that would close a cycle is refused at once with `deadlock`; edges carry their
// wait's end, so a waiter that crashed cannot leave a cycle behind for longer than its timeout.
import { ToolgateError, type TaskId } from '../protocol/index.js';
import type { TaskBoard } from './board.js';
import { isTerminal } from './record.js';
import { cycleOf } from './tree.js';

export interface WaitOutcome {
  readonly tasks: readonly { readonly task_id: string; readonly state: string }[];
  readonly timed_out: boolean;
}

/** Resolves after `ms`, or at once when `signal` aborts; the timer and the listener go either way. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function waitFor(board: TaskBoard, waiter: TaskId, targets: readonly TaskId[], timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome> {
  const root = (await board.get(waiter))?.root_id ?? waiter;
  for (const t of targets) {
    const sub = await board.get(t);
    const inTree = sub !== undefined ? sub.root_id === root : t === root;
    if (!inTree) throw new ToolgateError('task_state', `task ${t} is not in the tree of ${waiter}`, { task_id: t, state: sub?.state ?? 'unknown', reason: 'not_in_tree' });
  }
  const now = Date.now();
  const until = now + timeoutMs;
  const cycle = await board.tree.addWaits(
    targets.map((target) => ({ waiter, target, until })),
    now,
    (live) => (targets.includes(waiter) ? [waiter, waiter] : cycleOf(waiter, targets, live)),
  );
  if (cycle !== null) throw new ToolgateError('deadlock', `waiting for ${targets.join(', ')} would close the cycle ${cycle.join(' → ')}`, { waiter, cycle });
  try {
    for (;;) {
      const states = await Promise.all(targets.map(async (t) => ({ task_id: t, state: (await board.get(t))?.state ?? 'running' })));
      const done = states.every((s) => isTerminal(s.state as never));
      if (done || Date.now() >= until) return { tasks: states, timed_out: !done };
      if (signal.aborted) throw signal.reason;
      await pause(Math.min(board.settings.pollMs, Math.max(1, until - Date.now())), signal);
    }
  } finally {
    await board.tree.removeWaits(waiter, targets);
  }
}
