import { z } from 'zod';
import type { TaskId } from '../../protocol/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import type { TaskBoard } from '../board.js';

export const taskCancelArgs = z.strictObject({
  task_id: z.string().min(1).max(128).describe('A subtask below you'),
  reason: z.string().max(1000).optional(),
});
export type TaskCancelArgs = z.infer<typeof taskCancelArgs>;

export const taskCancelResult = z.strictObject({
  task_id: z.string(),
  cancelled: z.array(z.string()).describe('Every subtask this call ended: the one named and its live descendants'),
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
      return { status: 'succeeded', result: { task_id: ctx.args.task_id, cancelled: ended } };
    },
  });
}
