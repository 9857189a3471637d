import { z } from 'zod';
import { ToolgateError, type ArtifactRef, type ReceiptId, type Resource } from '../../protocol/index.js';
import { asOutcome, defineTool, failedOutcome, type NormalizeContext, type ReceiptLookup, type ToolDefinition } from '../../registry/index.js';
import { commitFileSet, mutationEvidence, openForUndo, removeEmptyDirs, type ChangeRecord, type FileBytes, type MutationEvidence, type PlannedWrite } from '../../resources/index.js';
import { conflictsOf, preimageBytes, renameBack, restoreTree, type Conflict } from './restore.js';
import { reconcileFsUndo } from './reconcile.js';

export const fsUndoArgs = z.strictObject({ receipt_id: z.string().regex(/^rcpt_[0-9a-f]{32}$/, 'a receipt id') });
export type FsUndoArgs = z.infer<typeof fsUndoArgs>;

export const fsUndoResult = z.strictObject({
  undone_receipt: z.string(),
  restored: z.array(z.string()),
  revision: z.string(),
});
export type FsUndoResult = z.infer<typeof fsUndoResult>;

function pathsOf(c: ChangeRecord): string[] {
  return c.op === 'rename' ? [c.to, c.from] : [c.path];
}

/** Which tools' receipts fs.undo restores: the ones whose definition says `undoable`. */
export interface FsUndoOptions {
  undoable(tool: string): boolean;
}

/** The mutation evidence of a receipt this workspace can undo, or a typed refusal. */
export async function evidenceToUndo(receipts: ReceiptLookup, id: string, workspaceId: string, undoable: FsUndoOptions['undoable']): Promise<MutationEvidence> {
  const receipt = await receipts.get(id as ReceiptId);
  if (!receipt) throw new ToolgateError('not_found', `no receipt ${id}`, { receipt_id: id });
  if (!undoable(receipt.tool)) throw new ToolgateError('invalid_resource', `${receipt.tool} receipts cannot be undone`, { receipt_id: id, tool: receipt.tool });
  if (receipt.status !== 'succeeded') throw new ToolgateError('invalid_resource', `receipt ${id} did not succeed (${receipt.status}); there is nothing to undo`, { receipt_id: id, status: receipt.status });
  const parsed = mutationEvidence.safeParse(receipt.evidence);
  if (!parsed.success) throw new ToolgateError('invalid_resource', `receipt ${id} carries no undo record`, { receipt_id: id });
  if (parsed.data.workspace !== workspaceId) throw new ToolgateError('invalid_resource', `receipt ${id} belongs to another workspace`, { receipt_id: id });
  return parsed.data;
}

/** fs.undo: restores the preimages of a mutation's receipt while its post-images are still in place. */
export function createFsUndo(opts: FsUndoOptions): ToolDefinition<FsUndoArgs, FsUndoResult, null> {
  const undoableEvidence = (receipts: ReceiptLookup, id: string, workspaceId: string): Promise<MutationEvidence> => evidenceToUndo(receipts, id, workspaceId, opts.undoable);
  return defineTool<FsUndoArgs, FsUndoResult, null>({
    name: 'fs.undo',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'Undo an fs.write, fs.patch, fs.delete or fs.rename (or fs.undo) receipt: restores the exact bytes and modes it replaced, if every file it changed still has the digest it left; otherwise fails with undo_conflict naming the files changed since.',
    owner: 'toolgate',
    effect_class: 'write',
    reversible: true,
    capabilities: ['fs.write'],
    args: fsUndoArgs,
    result: fsUndoResult,
    timeout_ms: 60_000,
    max_output_bytes: 64 * 1024,
    cancellation: 'uninterruptible',
    idempotency: 'reconcile',
    undoable: true,
    reconcile: reconcileFsUndo,
    async normalize(args, ctx: NormalizeContext) {
      // The exact paths the receipt changed are what gets authorized.
      const ev = await undoableEvidence(ctx.receipts, args.receipt_id, ctx.workspace.id);
      const resources: Resource[] = ev.changes.flatMap(pathsOf).map((path) => ({ kind: 'path' as const, path, access: 'write' as const }));
      return { resources, prepared: null };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const ev = await undoableEvidence(ctx.receipts, ctx.args.receipt_id, ctx.workspace.id);
        const records = [...ev.changes].reverse();
        const conflicts: Conflict[] = records.flatMap((c) => conflictsOf(ctx.workspace, c));
        if (conflicts.length > 0) {
          return failedOutcome({
            code: 'undo_conflict',
            message: `changed since ${ctx.args.receipt_id}: ${[...new Set(conflicts.map((c) => c.path))].join(', ')}`,
            data: { receipt_id: ctx.args.receipt_id, changed: [...new Set(conflicts.map((c) => c.path))], conflicts },
          });
        }
        if (records.some((c) => c.op === 'tree') && records.length > 1) throw new ToolgateError('unsupported', 'a tree restore mixed with other changes', {});

        const sent = { value: false };
        const changes: ChangeRecord[] = [];
        const artifacts: ArtifactRef[] = [];
        const restored: string[] = [];
        const fileRecords = records.filter((c): c is Extract<ChangeRecord, { op: 'file' }> => c.op === 'file');
        // File records are put back together, all or nothing. Preimage bytes are loaded before anything moves.
        if (fileRecords.length > 0) {
          const blobs = new Map<string, Buffer>();
          const wants: { c: Extract<ChangeRecord, { op: 'file' }>; bytes: FileBytes | null }[] = [];
          for (const c of fileRecords) wants.push({ c, bytes: c.before ? await preimageBytes(ctx.artifacts, c.before, blobs) : null });
          const plans: PlannedWrite[] = [];
          try {
            for (const { c, bytes } of wants) {
              let t = openForUndo(ctx.workspace, c.path, false);
              if (!t) {
                if (!sent.value) await ctx.markSent();
                sent.value = true;
                t = openForUndo(ctx.workspace, c.path, true);
              }
              if (!t) throw new ToolgateError('undo_conflict', `${c.path} cannot be reached`, { changed: [c.path] });
              plans.push({ target: t, after: bytes });
            }
            const done = await commitFileSet(ctx, plans, sent);
            if (!done.ok) return done.outcome;
            changes.push(...done.changes);
            artifacts.push(...done.artifacts);
            restored.push(...fileRecords.map((c) => c.path));
          } finally {
            for (const p of plans) p.target.close();
          }
          for (const c of fileRecords) if (c.before === null) removeEmptyDirs(ctx.workspace, c.created_dirs);
        }
        for (const c of records) {
          if (c.op === 'rename') {
            if (!sent.value) await ctx.markSent();
            sent.value = true;
            await renameBack(ctx.workspace, c);
            changes.push({ op: 'rename', from: c.to, to: c.from, kind: c.kind, identity: c.identity, after_sha256: c.after_sha256, overwritten: null });
            restored.push(c.from);
            if (c.overwritten) {
              const t = openForUndo(ctx.workspace, c.to, false);
              if (!t) throw new ToolgateError('undo_conflict', `${c.to} cannot be reached`, { changed: [c.to] });
              try {
                const done = await commitFileSet(ctx, [{ target: t, after: await preimageBytes(ctx.artifacts, c.overwritten) }], sent);
                if (!done.ok) return done.outcome;
                changes.push(...done.changes);
                artifacts.push(...done.artifacts);
                restored.push(c.to);
              } finally {
                t.close();
              }
            }
          } else if (c.op === 'tree') {
            if (!sent.value) await ctx.markSent();
            sent.value = true;
            await restoreTree(ctx.workspace, ctx.artifacts, c);
            restored.push(c.path);
          }
        }
        const revision = await ctx.revision.advance();
        return {
          status: 'succeeded',
          result: { undone_receipt: ctx.args.receipt_id, restored, revision },
          evidence: { workspace: ctx.workspace.id, revision, changes },
          artifacts,
        };
      }),
  });
}
