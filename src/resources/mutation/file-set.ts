// The commit step shared by fs.write, fs.patch, fs.delete and fs.undo: preimages to the artifact store,
// markSent, the all-or-nothing replacement, the new revision, and the change records.
import { errorBody, type ArtifactRef, type PartialEffect } from '../../protocol/index.js';
import type { FileBytes } from '../paths/atomic-replace.js';
import { applyAllOrNothing, asToolgateError, type FileChange } from '../paths/file-transaction.js';
import type { OpenedTarget } from '../paths/write-target.js';
import type { FailedCommitOutcome, MutationContext } from './context.js';
import { removeEmptyDirs, syncCreatedDirs } from './entry-at.js';
import { fileSetIntentOf } from './file-set-reconcile.js';
import { TreePacer } from '../paths/pacer.js';
import { postImage, postImagePaced, PreimageBundle, type ChangeRecord, type StagedBundle } from './record.js';

/**
 * Preimages larger than this in all are hashed and written a slice at a time and synced on the
 * libuv pool (the event loop runs meanwhile; fs.delete of a 200 MB file held it 0.5 s). Smaller
 * ones are synced on this thread while the intent's sync runs on the store's writer, which is
 * quicker than a hop to the pool and back (fs.patch's 20 files, bench/patch).
 */
export const PACED_PREIMAGE_BYTES = 1024 * 1024;

export interface PlannedWrite {
  readonly target: OpenedTarget;
  /** The new content; null removes the file. */
  readonly after: FileBytes | null;
}

export type CommitResult =
  | { readonly ok: true; readonly revision: string; readonly changes: ChangeRecord[]; readonly artifacts: ArtifactRef[] }
  | { readonly ok: false; readonly outcome: FailedCommitOutcome };

/** Removes directories made for a write that did not happen (innermost first; only when empty). */
export function removeCreatedDirs(ctx: MutationContext, plans: readonly PlannedWrite[]): void {
  for (const p of plans) removeEmptyDirs(ctx.workspace, p.target.created_dirs);
}

export async function commitFileSet(ctx: MutationContext, plans: readonly PlannedWrite[], sent: { value: boolean }): Promise<CommitResult> {
  const artifacts: ArtifactRef[] = [];
  const bundle = new PreimageBundle();
  const pacer = new TreePacer();
  const large = plans.reduce((n, p) => n + (p.target.current?.data.length ?? 0), 0) > PACED_PREIMAGE_BYTES;
  const changes: ChangeRecord[] = [];
  for (const p of plans) {
    const current = p.target.current;
    const before = current === null ? null : large ? await bundle.addPaced(current, pacer) : bundle.add(current);
    const after = p.after === null ? null : p.after.data.length > PACED_PREIMAGE_BYTES ? await postImagePaced(p.after, pacer) : postImage(p.after);
    changes.push({ op: 'file', path: p.target.path, before, after, created_dirs: [...p.target.created_dirs] });
  }
  const txChanges: FileChange[] = plans.map((p) => ({
    site: { root: ctx.workspace.root, dir: p.target.dir, path: p.target.path, dirfd: p.target.dirfd, parent: p.target.parent, name: p.target.name, expected: p.target.state },
    before: p.target.current,
    after: p.after,
  }));
  // The intent (what reconcile compares the workspace with after a crash) and the preimages
  // become durable while the staged files sync, and before the first entry moves: one round of
  // syncs instead of two. A crash before the intent leaves only staged temporary files, which the
  // next runtime open sweeps; the call is then claimed and not sent, so a retry runs.
  // The preimage bundle is written here and synced on this thread while the intent's fsync runs
  // on the store's writer thread and the staged files' on the libuv pool (before, it was synced
  // after the intent's). It enters the store (renamed to its digest) only once the intent is
  // recorded, so a commit that stops before leaves no artifact.
  const digest = large ? await bundle.digestPaced(pacer) : bundle.digest();
  const role = `preimages:${plans.length === 1 ? plans[0]?.target.path : `${plans.length} files`}`;
  let preimages: StagedBundle | null;
  try {
    preimages = large ? await bundle.stagePaced(ctx.artifacts, role, pacer) : bundle.stage(ctx.artifacts, role);
  } catch (e) {
    throw asToolgateError(e, '(preimages of the file set)'); // nothing staged, nothing sent
  }
  const sealed = { value: false };
  const intent = { failure: null as { readonly error: unknown } | null };
  let tx: Awaited<ReturnType<typeof applyAllOrNothing>>;
  try {
    tx = await applyAllOrNothing(txChanges, async () => {
      let sending: Promise<void>;
      try {
        sending = ctx.markSent(fileSetIntentOf(changes, digest));
      } catch (e) {
        sending = Promise.reject(e);
      }
      // After the files are staged: an fsync under way makes creates wait for its journal commit.
      let syncFailure: { readonly error: unknown } | null = null;
      // A large bundle syncs on the pool; it is awaited before anything closes its fd.
      const syncing = large && preimages ? preimages.syncAsync().catch((error: unknown) => void (syncFailure = { error })) : null;
      const created = plans.flatMap((p) => p.target.created_dirs);
      const dirsSynced = created.length > 0 ? syncCreatedDirs(ctx.workspace, created).catch((error: unknown) => void (syncFailure ??= { error })) : null;
      if (!large) {
        try {
          preimages?.sync();
        } catch (error) {
          syncFailure = { error };
        }
      }
      try {
        await sending;
      } catch (e) {
        intent.failure = { error: e };
        await Promise.all([syncing, dirsSynced]);
        throw e;
      }
      await Promise.all([syncing, dirsSynced]);
      sent.value = true;
      if (syncFailure) throw syncFailure.error;
      if (preimages) {
        artifacts.push(preimages.seal());
        sealed.value = true; // a seal that threw is aborted below (its fd closed, its part removed)
      }
    });
  } finally {
    if (preimages && !sealed.value) preimages.abort();
  }
  // A store that could not record the intent is the runtime's failure to report, as before.
  if (intent.failure) throw intent.failure.error;
  if (tx.ok) return { ok: true, revision: await ctx.revision.advance(), changes, artifacts };

  const touched = tx.applied.length + tx.restored.length > 0;
  const revision = touched ? await ctx.revision.advance() : await ctx.revision.current();
  if (tx.applied.length === 0) removeCreatedDirs(ctx, plans);
  const partial: PartialEffect = { applied: tx.applied, unapplied: tx.unapplied, restored: tx.restored };
  const cause = tx.error.toBody();
  const data = { ...cause.data, failed: tx.failed, cause_code: cause.code, applied: tx.applied, restored: tx.restored, revision };
  // Rolled back completely: the failure is the write's own. Some changes stuck: a partial failure.
  const error =
    tx.applied.length === 0
      ? errorBody(cause.code, cause.message, data)
      : errorBody('partial_failure', `${tx.failed} failed and ${tx.applied.length} earlier change(s) could not be rolled back`, data);
  return { ok: false, outcome: { status: 'failed', result: null, error, partial, artifacts, evidence: { workspace: ctx.workspace.id, revision, changes: changes.filter((c) => c.op === 'file' && tx.applied.includes(c.path)) } } };
}
