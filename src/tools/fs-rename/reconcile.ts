// fs.rename records at markSent the moved entry's identity (device/inode), both names and the
// digests of an overwritten target. After a crash: the inode at `to` and not at `from` →
// completed; at `from` and not at `to` → released; at both (a torn link + unlink: one inode,
// two names) → the rename is finished by removing `from`, then completed.
import { unlinkSync, closeSync } from 'node:fs';
import { z } from 'zod';
import type { EffectIntent, ReconcileContext, ReconcileVerdict } from '../../registry/index.js';
import { fileImage, identityAt, openDirectoryBeneath, procPath, syncDirectories, type ChangeRecord } from '../../resources/index.js';

export const renameIntent = z.strictObject({
  kind: z.literal('rename'),
  from: z.string(),
  to: z.string(),
  entry: z.enum(['file', 'directory', 'symlink']),
  identity: z.strictObject({ dev: z.number(), ino: z.number() }),
  after_sha256: z.string().nullable(),
  overwritten: fileImage.nullable(),
});

export function renameIntentOf(r: Omit<z.infer<typeof renameIntent>, 'kind'>): EffectIntent {
  return { kind: 'rename', ...r };
}

/** Removes the name `path` when it still names the inode `identity` (the torn rename's old name). */
async function dropOldName(ctx: ReconcileContext, path: string, identity: { dev: number; ino: number }): Promise<void> {
  const parts = path.split('/');
  const d = openDirectoryBeneath(ctx.workspace.rootFd, ctx.workspace.root, parts.slice(0, -1), { create: false });
  try {
    const name = procPath(d.fd, parts[parts.length - 1] as string);
    const now = identityAt(ctx.workspace, path);
    if (!now || now.dev !== identity.dev || now.ino !== identity.ino) return;
    unlinkSync(name);
    await syncDirectories([d.fd]);
  } finally {
    if (d.fd !== ctx.workspace.rootFd) closeSync(d.fd);
  }
}

export async function reconcileFsRename(ctx: ReconcileContext): Promise<ReconcileVerdict> {
  if (ctx.intent === null) return { settled: 'released', evidence: { reason: 'no intent was recorded: the crash came before the rename' } };
  const parsed = renameIntent.safeParse(ctx.intent);
  if (!parsed.success) return { settled: 'unknown', reason: 'the recorded intent is not a rename' };
  const i = parsed.data;
  const same = (x: { dev: number; ino: number } | null): boolean => x !== null && x.dev === i.identity.dev && x.ino === i.identity.ino;
  const atFrom = same(identityAt(ctx.workspace, i.from));
  const atTo = same(identityAt(ctx.workspace, i.to));
  const completed = async (torn: boolean): Promise<ReconcileVerdict> => {
    const revision = await ctx.revision.advance();
    const change: ChangeRecord = { op: 'rename', from: i.from, to: i.to, kind: i.entry, identity: i.identity, after_sha256: i.after_sha256, overwritten: i.overwritten };
    return { settled: 'completed', evidence: { workspace: ctx.workspace.id, revision, changes: [change], ...(torn ? { torn_rename_finished: true } : {}) } };
  };
  if (atTo && atFrom) {
    // Both names on one inode: the link was made, the unlink was not. Finish the rename.
    if (i.entry === 'directory') return { settled: 'unknown', reason: 'a directory cannot have two names; the workspace changed' };
    await dropOldName(ctx, i.from, i.identity);
    return completed(true);
  }
  if (atTo) return completed(false);
  if (atFrom) return { settled: 'released', evidence: { workspace: ctx.workspace.id, unchanged: [i.from] } };
  return { settled: 'unknown', reason: `the entry (inode ${i.identity.ino}) is at neither ${i.from} nor ${i.to}` };
}
