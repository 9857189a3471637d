// The child's side of cancellation: the host serving a subtask (`toolgate serve --task-token-file`)
// may be another process than its parent's, so it watches the subtask's row and, once the parent
// (or the deadline) ended it, calls `onEnd`: the host cancels the task's running calls (each ends
// with its receipt, its processes killed) and closes the connection.
import type { TaskId } from '../protocol/index.js';
import type { TaskBoard } from './board.js';
import type { TaskState } from './record.js';

export interface SubtaskWatch {
  /** Settles when the watch ended (the task ended, or `stop`). */
  readonly ended: Promise<TaskState | null>;
  stop(): void;
}

/** Polls the row every `pollMs`; `completed` is not an end here: the child's own task.complete must commit its receipt first. */
export function watchSubtask(board: TaskBoard, task: TaskId, onEnd: (state: TaskState) => void, pollMs = 200): SubtaskWatch {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let settle: (s: TaskState | null) => void = () => {};
  const ended = new Promise<TaskState | null>((resolve) => (settle = resolve));
  const tick = async (): Promise<void> => {
    if (stopped) return;
    const sub = await board.get(task).catch(() => undefined);
    if (stopped) return;
    if (sub !== undefined && (sub.state === 'cancelled' || sub.state === 'expired' || sub.state === 'failed')) {
      stopped = true;
      onEnd(sub.state);
      settle(sub.state);
      return;
    }
    timer = setTimeout(() => void tick(), pollMs);
  };
  void tick();
  return {
    ended,
    stop: () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      settle(null);
    },
  };
}
