// fs.delete of a file commits a file set (its intent: path, pre-image, no post-image). A tree
// records its top inode, the trash name it is moved to and its manifest artifact. After a
// crash: the inode still at the path → released; gone from the path → completed (a trash left
// by the crash is removed, finishing the delete).
import { closeSync } from 'node:fs';
import { z } from 'zod';
import type { EffectIntent, ReconcileContext, ReconcileVerdict } from '../../registry/index.js';
import { identityAt, isToolgateTempName, openDirectoryBeneath, reconcileFileSet, removeTree, syncDirectories } from '../../resources/index.js';

export const treeIntent = z.strictObject({
  kind: z.literal('tree'),
  path: z.string(),
  trash: z.string().refine((name) => isToolgateTempName(name) && name.endsWith('.del'), 'a Toolgate trash name'),
  identity: z.strictObject({ dev: z.number(), ino: z.number() }),
  manifest: z.string(),
  entries: z.number().int(),
});

export function treeIntentOf(t: Omit<z.infer<typeof treeIntent>, 'kind'>): EffectIntent {
  return { kind: 'tree', ...t };
}

async function removeTrash(ctx: ReconcileContext, path: string, trash: string, identity: { dev: number; ino: number }): Promise<boolean> {
  const dir = path.split('/').slice(0, -1);
  const at = identityAt(ctx.workspace, [...dir, trash].join('/'));
  if (!at || at.dev !== identity.dev || at.ino !== identity.ino) return false;
  const d = openDirectoryBeneath(ctx.workspace.rootFd, ctx.workspace.root, dir, { create: false });
  try {
    await removeTree(d.fd, trash);
    await syncDirectories([d.fd]);
    return true;
  } finally {
    if (d.fd !== ctx.workspace.rootFd) closeSync(d.fd);
  }
}

export async function reconcileFsDelete(ctx: ReconcileContext): Promise<ReconcileVerdict> {
  const parsed = treeIntent.safeParse(ctx.intent);
  if (!parsed.success) return reconcileFileSet(ctx, { withoutIntent: 'released', preimageMeansReleased: true });
  const i = parsed.data;
  const now = identityAt(ctx.workspace, i.path);
  if (now && now.dev === i.identity.dev && now.ino === i.identity.ino) return { settled: 'released', evidence: { workspace: ctx.workspace.id, unchanged: [i.path] } };
  const finished = await removeTrash(ctx, i.path, i.trash, i.identity);
  const revision = await ctx.revision.advance();
  return {
    settled: 'completed',
    evidence: { workspace: ctx.workspace.id, revision, changes: [{ op: 'tree', path: i.path, manifest: i.manifest, entries: i.entries }], ...(finished ? { trash_removed: i.trash } : {}) },
  };
}
