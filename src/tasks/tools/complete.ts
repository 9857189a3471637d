import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../registry/index.js';
import type { TaskBoard } from '../board.js';

export const taskCompleteArgs = z.strictObject({
  conclusion: z.unknown().describe("The subtask's answer: JSON matching the output schema it was spawned with"),
});
export type TaskCompleteArgs = z.infer<typeof taskCompleteArgs>;

const changes = z.array(z.strictObject({ status: z.string(), path: z.string() }));

export const taskCompleteResult = z.strictObject({
  task_id: z.string(),
  state: z.string(),
  commit: z.string(),
  changes,
  patch_digest: z.string().nullable(),
  evidence: z.strictObject({ receipts: z.number().int(), head_receipt_id: z.string().nullable(), head_digest: z.string().nullable() }),
});
export type TaskCompleteResult = z.infer<typeof taskCompleteResult>;

/** task.complete: the one way a subtask hands back (a conclusion checked against its schema, and its changes). */
export function createTaskComplete(board: TaskBoard): ToolDefinition<TaskCompleteArgs, TaskCompleteResult, undefined> {
  return defineTool<TaskCompleteArgs, TaskCompleteResult, undefined>({
    name: 'task.complete',
    module: import.meta.url,
    version: '1.0.0',
    description:
      "Hand back this subtask's result: a conclusion matching the output schema it was spawned with (a mismatch is refused and may be fixed and retried), plus every change in its worktree as a patch. The only way a subtask returns anything; it ends the subtask.",
    owner: 'toolgate',
    // Read: it changes no workspace file (the worktree is snapshotted, not written), so a
    // read-only reviewer can hand back too.
    effect_class: 'read',
    reversible: false,
    capabilities: [],
    args: taskCompleteArgs,
    result: taskCompleteResult,
    timeout_ms: 120_000,
    max_output_bytes: 64 * 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    async execute(ctx) {
      const done = await board.complete(ctx.task_id, ctx.args.conclusion, ctx.artifacts, (p) => ctx.workspace.classifier.classify(p) === 'secret', ctx.signal);
      const r = done.record.result;
      if (r === null) throw new Error('a completed subtask without its result');
      return {
        status: 'succeeded',
        result: { task_id: done.task_id, state: done.state, commit: r.commit, changes: r.changes.map((c) => ({ ...c })), patch_digest: r.patch?.digest ?? null, evidence: { ...r.evidence } },
        evidence: { commit: r.commit, bound_receipts: r.evidence },
        artifacts: r.patch ? [r.patch] : [],
      };
    },
  });
}
