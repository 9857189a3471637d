import { z } from 'zod';
import type { TaskId } from '../../protocol/index.js';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import type { TaskBoard } from '../board.js';
import { waitFor } from '../wait.js';

const MAX_WAIT_MS = 600_000;

export const taskWaitArgs = z.strictObject({
  task_ids: z.array(z.string().min(1).max(128)).min(1).max(16).describe('Tasks of your tree to wait for'),
  timeout_ms: z.number().int().min(0).max(MAX_WAIT_MS).optional().describe('Longest wait (default 30000); never past the call deadline'),
});
export type TaskWaitArgs = z.infer<typeof taskWaitArgs>;

export const taskWaitResult = z.strictObject({
  tasks: z.array(z.strictObject({ task_id: z.string(), state: z.string() })),
  timed_out: z.boolean(),
});
export type TaskWaitResult = z.infer<typeof taskWaitResult>;

/** task.wait: until every named task ended or the timeout; a wait that would close a cycle fails at once with `deadlock`. */
export function createTaskWait(board: TaskBoard): ToolDefinition<TaskWaitArgs, TaskWaitResult, undefined> {
  return defineTool<TaskWaitArgs, TaskWaitResult, undefined>({
    name: 'task.wait',
    module: import.meta.url,
    version: '1.0.0',
    description: 'Wait until the named subtasks end (completed, cancelled, expired or failed) or the timeout passes; returns each state. A wait that would close a cycle of waits fails at once with deadlock.',
    owner: 'toolgate',
    effect_class: 'read',
    reversible: true,
    capabilities: [],
    args: taskWaitArgs,
    result: taskWaitResult,
    timeout_ms: MAX_WAIT_MS + 10_000,
    max_output_bytes: 16 * 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    async execute(ctx) {
      // The wait ends a second before the call's deadline, so it answers rather than expires.
      const timeout = Math.max(0, Math.min(ctx.args.timeout_ms ?? 30_000, ctx.deadline - Date.now() - 1000));
      const r = await waitFor(board, ctx.task_id, ctx.args.task_ids as TaskId[], timeout, ctx.signal);
      return { status: 'succeeded', result: { tasks: r.tasks.map((t) => ({ ...t })), timed_out: r.timed_out } };
    },
  });
}
