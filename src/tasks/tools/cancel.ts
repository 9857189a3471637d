import { z } from 'zod';
import type { TaskId } from '../../protocol/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import type { TaskBoard } from '../board.js';
import { pause } from '../wait.js';

/** How long task.cancel waits for the hosts to end their calls: their poll, the abort grace (5 s), a margin. */
const CALLS_END_WAIT_MS = 20_000;

export const taskCancelArgs = z.strictObject({
  task_id: z.string().min(1).max(128).describe('A subtask below you'),
  reason: z.string().max(1000).optional(),
});
export type TaskCancelArgs = z.infer<typeof taskCancelArgs>;

export const taskCancelResult = z.strictObject({
  task_id: z.string(),
  cancelled: z.array(z.string()).describe('Every subtask this call ended: the one named and its live descendants'),
  calls_ended: z.boolean().describe("Whether their hosts ended every effectful call in flight (each with its receipt) within the wait; false: some are still ending, or a host is gone (toolgate reconcile)"),
});
export type TaskCancelResult = z.infer<typeof taskCancelResult>;

/** task.cancel: ends a subtask and its whole subtree; their hosts end their running calls (with receipts). */
export function createTaskCancel(board: TaskBoard): ToolDefinition<TaskCancelArgs, TaskCancelResult, undefined> {
  return defineTool<TaskCancelArgs, TaskCancelResult, undefined>({
    name: 'task.cancel',
    module: import.meta.url,
    version: '1.0.0',
    description: "Cancel a subtask below you and its whole subtree: their running calls end with receipts, their processes stop, their worktrees are removed, and what they used is charged to you.",
    owner: 'toolgate',
    effect_class: 'write',
    reversible: false,
    capabilities: [],
    args: taskCancelArgs,
    result: taskCancelResult,
    timeout_ms: 60_000,
    max_output_bytes: 16 * 1024,
    cancellation: 'uninterruptible',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    async execute(ctx) {
      const ended = await board.cancel(ctx.task_id, ctx.args.task_id as TaskId, ctx.args.reason ?? `cancelled by ${ctx.task_id}`);
      // The hosts (other processes) see the cancellation at their next look and end their calls:
      // wait, bounded, until no effect of the subtree is in flight, so the receipts exist on return.
      const until = Math.min(Date.now() + CALLS_END_WAIT_MS, ctx.deadline - 1000);
      let inFlight = await board.inFlight(ended);
      while (inFlight > 0 && Date.now() < until && !ctx.signal.aborted) {
        await pause(board.settings.pollMs, ctx.signal);
        inFlight = await board.inFlight(ended);
      }
      return { status: 'succeeded', result: { task_id: ctx.args.task_id, cancelled: ended, calls_ended: inFlight === 0 } };
    },
  });
}
