import { z } from 'zod';
import { ToolgateError, type ArtifactRef, type TaskId } from '../../protocol/index.js';
import { asOutcome, defineTool, type ToolDefinition } from '../../registry/index.js';
import { reconcileFileSet, resolveWriteTarget, type WriteTarget } from '../../resources/index.js';
import type { TaskBoard } from '../board.js';
import type { MergeOutcome } from '../record.js';
import { mergeChanges } from './result-merge.js';

export const taskResultArgs = z.strictObject({
  task_id: z.string().min(1).max(128).describe('A child of yours'),
  merge: z.boolean().optional().describe("Merge the child's patch into your workspace (default true); a conflict is reported with its paths and nothing is written"),
});
export type TaskResultArgs = z.infer<typeof taskResultArgs>;

const mergeShape = z.union([
  z.strictObject({ status: z.literal('merged'), written: z.array(z.string()), deleted: z.array(z.string()), revision: z.string().nullable() }),
  z.strictObject({ status: z.literal('conflict'), conflicts: z.array(z.strictObject({ path: z.string(), reason: z.string() })) }),
]);

export const taskResultResult = z.strictObject({
  task_id: z.string(),
  state: z.string(),
  ended_reason: z.string().nullable(),
  conclusion: z.unknown(),
  changes: z.array(z.strictObject({ status: z.string(), path: z.string() })),
  patch_digest: z.string().nullable(),
  commit: z.string().nullable(),
  merge: mergeShape.nullable(),
  charged: z.record(z.string(), z.number()).nullable(),
});
export type TaskResultResult = z.infer<typeof taskResultResult>;

function mergeView(m: MergeOutcome): TaskResultResult['merge'] {
  return m.status === 'merged' ? { ...m, written: [...m.written], deleted: [...m.deleted] } : { status: 'conflict', conflicts: m.conflicts.map((c) => ({ ...c })) };
}

interface Prepared {
  readonly targets: readonly WriteTarget[];
}

/** task.result: a child's bounded conclusion and artifact references, and its patch merged into the parent's workspace. */
export function createTaskResult(board: TaskBoard): ToolDefinition<TaskResultArgs, TaskResultResult, Prepared> {
  return defineTool<TaskResultArgs, TaskResultResult, Prepared>({
    name: 'task.result',
    module: import.meta.url,
    version: '1.0.0',
    description:
      "Collect an ended child's result: its conclusion, the patch digest and the paths it changed; by default its patch is merged into your workspace three ways against the revision it started from. A conflict writes nothing and lists the paths.",
    owner: 'toolgate',
    effect_class: 'write',
    reversible: true,
    capabilities: ['fs.write'],
    args: taskResultArgs,
    result: taskResultResult,
    timeout_ms: 120_000,
    max_output_bytes: 128 * 1024,
    cancellation: 'uninterruptible',
    idempotency: 'reconcile',
    reconcile: (ctx) => reconcileFileSet(ctx, { withoutIntent: 'released', preimageMeansReleased: true }),
    async normalize(args, ctx) {
      const sub = await board.childOf(ctx.task_id, args.task_id as TaskId);
      const changes = sub.state === 'completed' && args.merge !== false ? (sub.record.result?.changes ?? []) : [];
      // The merge writes these paths of the parent's workspace: the parent's grant decides them.
      const targets = changes.map((c) => resolveWriteTarget(ctx.workspace, c.path, { createParents: true }));
      return {
        resources: targets.map((t, i) => ({ kind: 'path', path: t.path, access: changes[i]?.status === 'D' ? 'delete' : t.exists ? 'write' : 'create' })),
        prepared: { targets },
      };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const sub = await board.childOf(ctx.task_id, ctx.args.task_id as TaskId);
        if (sub.state === 'running') throw new ToolgateError('task_state', `task ${sub.task_id} is still running: wait for it (task.wait)`, { task_id: sub.task_id, state: sub.state, reason: 'not_terminal' });
        const r = sub.record.result;
        let merge: MergeOutcome | null = sub.record.merge;
        let evidence: Record<string, unknown> = {};
        let artifacts: readonly ArtifactRef[] = [];
        if (r !== null && ctx.args.merge !== false && merge?.status !== 'merged') {
          const merged = await mergeChanges(ctx, { root: ctx.workspace.root, gitDir: sub.record.git_dir }, sub.record.input_revision, r.commit, ctx.prepared.targets);
          if ('failed' in merged) return merged.failed;
          merge = merged.merge;
          evidence = merged.evidence;
          artifacts = merged.artifacts;
          await board.recordMerge(sub.task_id, merge);
        }
        await board.release(sub.task_id);
        // The link `audit verify` follows: this receipt names the child's completion receipt.
        const completion = await board.completionReceipt(sub.task_id);
        return {
          status: 'succeeded',
          result: {
            task_id: sub.task_id,
            state: sub.state,
            ended_reason: sub.record.ended_reason,
            conclusion: r?.conclusion ?? null,
            changes: (r?.changes ?? []).map((c) => ({ ...c })),
            patch_digest: r?.patch?.digest ?? null,
            commit: r?.commit ?? null,
            merge: merge === null ? null : mergeView(merge),
            charged: sub.record.charged === null ? null : { ...sub.record.charged },
          },
          evidence: { ...evidence, subtask: sub.task_id, child_completion_receipt: completion },
          artifacts: [...(r?.patch ? [r.patch] : []), ...artifacts],
        };
      }),
  });
}
