// task.result's write: the child's changed paths merged three ways into the parent's workspace,
// all or nothing (the mutation kit's file set: preimages kept, so fs.undo and reconcile work).
import type { ArtifactRef } from '../../protocol/index.js';
import type { ExecuteContext, ToolOutcome } from '../../registry/index.js';
import { commitFileSet, openWriteTarget, removeCreatedDirs, type OpenedTarget, type PlannedWrite, type WriteTarget } from '../../resources/index.js';
import { mergePath } from '../merge.js';
import type { MergeOutcome } from '../record.js';
import { modeAt, type Repository } from '../worktree.js';

const MERGE_MAX_FILE_BYTES = 64 * 1024 * 1024;

export type MergeDone =
  | { readonly merge: MergeOutcome; readonly evidence: Record<string, unknown>; readonly artifacts: readonly ArtifactRef[] }
  | { readonly failed: ToolOutcome<never> };

export async function mergeChanges<A, P>(
  ctx: ExecuteContext<A, P>,
  repo: Repository,
  input: string,
  result: string,
  targets: readonly WriteTarget[],
): Promise<MergeDone> {
  if (targets.length === 0) return { merge: { status: 'merged', written: [], deleted: [], revision: null }, evidence: {}, artifacts: [] };
  const opened: OpenedTarget[] = [];
  const sent = { value: false };
  try {
    await ctx.markSent(); // parent directories may be made next
    sent.value = true;
    for (const t of targets) opened.push(openWriteTarget(ctx.workspace, t, { createParents: true, maxBytes: MERGE_MAX_FILE_BYTES }));
    const plans: PlannedWrite[] = [];
    const conflicts: { path: string; reason: string }[] = [];
    for (const o of opened) {
      const m = await mergePath(repo, input, result, o.path, o.current?.data ?? null);
      if (m.kind === 'conflict') conflicts.push({ path: m.path, reason: m.reason });
      else if (m.kind === 'delete') plans.push({ target: o, after: null });
      else if (m.kind === 'write') {
        const mode = o.current?.mode ?? ((await modeAt(repo, result, o.path)) ?? 0o100644) & 0o777;
        plans.push({ target: o, after: { data: m.data, mode } });
      }
    }
    if (conflicts.length > 0 || plans.length === 0) {
      removeCreatedDirs(ctx, opened.map((target) => ({ target, after: null })));
      const merge: MergeOutcome = conflicts.length > 0 ? { status: 'conflict', conflicts } : { status: 'merged', written: [], deleted: [], revision: null };
      return { merge, evidence: {}, artifacts: [] };
    }
    const done = await commitFileSet(ctx, plans, sent);
    if (!done.ok) return { failed: done.outcome as ToolOutcome<never> };
    return {
      merge: {
        status: 'merged',
        written: plans.filter((p) => p.after !== null).map((p) => p.target.path),
        deleted: plans.filter((p) => p.after === null).map((p) => p.target.path),
        revision: done.revision,
      },
      evidence: { workspace: ctx.workspace.id, revision: done.revision, changes: done.changes },
      artifacts: done.artifacts,
    };
  } finally {
    for (const o of opened) o.close();
  }
}
