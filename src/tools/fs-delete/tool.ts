import { closeSync, renameSync } from 'node:fs';
import { z } from 'zod';
import { ToolgateError, type ArtifactRef } from '../../protocol/index.js';
import { asOutcome, defineTool, failedOutcome, type ToolDefinition } from '../../registry/index.js';
import {
  assertWritable,
  commitFileSet,
  openDirectoryBeneath,
  openWriteTargetPaced,
  PreimageBundle,
  procPath,
  putPaced,
  recheckSite,
  refuseSecretLink,
  removeTree,
  resolveStable,
  syncDirectories,
  tempName,
  trackedEntries,
  TreePacer,
  walkTree,
  type FileImage,
  type ResolvedPath,
  type TreeEntry,
  type Workspace,
} from '../../resources/index.js';
import { reconcileFsDelete, treeIntentOf } from './reconcile.js';
import { failpoint } from '../../protocol/index.js';

export const FS_DELETE_DEFAULT_MAX_ENTRIES = 10_000;
/** Preimages of a removed tree are kept whole; this bounds how much one delete may hold. */
export const FS_DELETE_MAX_BYTES = 256 * 1024 * 1024;

export const fsDeleteArgs = z.strictObject({
  path: z.string().min(1),
  recursive: z.boolean().default(false).describe('Needed to remove a directory that is not empty'),
  max_entries: z.number().int().min(1).max(100_000).default(FS_DELETE_DEFAULT_MAX_ENTRIES),
});
export type FsDeleteArgs = z.infer<typeof fsDeleteArgs>;

export const fsDeleteResult = z.strictObject({
  path: z.string(),
  kind: z.enum(['file', 'directory', 'symlink']),
  /** `tracked` / `untracked` by git (`partly_tracked` for a directory), or `not_a_repository`. */
  git: z.enum(['tracked', 'untracked', 'partly_tracked', 'not_a_repository']),
  tracked_entries: z.number().int().nullable(),
  entries_removed: z.number().int(),
  preimage_artifact: z.string().nullable(),
  revision: z.string(),
});
export type FsDeleteResult = z.infer<typeof fsDeleteResult>;

export interface ManifestEntry {
  readonly path: string;
  readonly kind: 'file' | 'directory' | 'symlink';
  readonly mode: number;
  readonly sha256?: string;
  readonly artifact?: string;
  readonly offset?: number;
  readonly size?: number;
  readonly target?: string;
}

function gitState(tracked: number | null, kind: 'file' | 'directory' | 'symlink', files: number): FsDeleteResult['git'] {
  if (tracked === null) return 'not_a_repository';
  if (tracked === 0) return 'untracked';
  return kind === 'directory' && tracked < files ? 'partly_tracked' : 'tracked';
}

/** Lists the tree beneath a resolved path through its open parent; refuses secret and protected entries. */
async function listTree(ws: Workspace, r: ResolvedPath, maxEntries: number): Promise<TreeEntry[]> {
  const leaf = ws.openLeaf(r.path, { links: 'never', allowMissingLeaf: false, leafNoFollow: true });
  try {
    const pacer = new TreePacer();
    const entries = await walkTree(leaf.dirfd, r.components[r.components.length - 1] as string, { maxEntries, maxBytes: FS_DELETE_MAX_BYTES }, false, pacer);
    await assertAllWritable(ws, r.path, entries, pacer);
    return entries;
  } finally {
    leaf.release();
  }
}

/** Refuses the tree when an entry beneath it is secret or protected; the event loop runs every PACE_ENTRIES. */
async function assertAllWritable(ws: Workspace, top: string, entries: readonly TreeEntry[], pacer: TreePacer): Promise<void> {
  for (const e of entries) {
    if (pacer.due()) await pacer.pause();
    if (e.path) assertWritable(ws, `${top}/${e.path}`, `${top}/${e.path}`);
  }
}

const sameEntries = (a: readonly TreeEntry[], b: readonly TreeEntry[]): boolean =>
  a.length === b.length && a.every((x, i) => { const y = b[i]; return !!y && y.path === x.path && y.kind === x.kind && y.ino === x.ino && y.dev === x.dev && y.size === x.size && y.mtimeMs === x.mtimeMs; });

/** fs.delete: removes a file, a link or (with recursive) a directory tree, keeping every preimage. */
export function createFsDelete(): ToolDefinition<FsDeleteArgs, FsDeleteResult, ResolvedPath> {
  return defineTool<FsDeleteArgs, FsDeleteResult, ResolvedPath>({
    name: 'fs.delete',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'Delete a file, a symbolic link (the link itself) or, with recursive: true, a directory tree beneath the workspace root. Says whether git tracked it. Every removed byte is kept as a preimage artifact, so the receipt can be undone.',
    owner: 'toolgate',
    // Reversible from its preimages, so a workspace write rather than the irreversible `delete` class.
    effect_class: 'write',
    reversible: true,
    capabilities: ['fs.write'],
    args: fsDeleteArgs,
    result: fsDeleteResult,
    timeout_ms: 60_000,
    max_output_bytes: 64 * 1024,
    cancellation: 'uninterruptible',
    idempotency: 'reconcile',
    undoable: true,
    reconcile: reconcileFsDelete,
    async normalize(args, ctx) {
      const r = resolveStable(ctx.workspace, args.path, { leafNoFollow: true });
      assertWritable(ctx.workspace, r.path, args.path);
      if (!r.exists) throw new ToolgateError('not_found', `no such file or directory: ${r.path}`, { path: r.path });
      if (r.path === '.') throw new ToolgateError('invalid_resource', 'the workspace root cannot be deleted', { path: '.' });
      if (r.kind === 'other') throw new ToolgateError('unsupported', `${r.path} is neither a file, a directory nor a link`, { path: r.path });
      if (r.kind === 'directory') {
        const entries = await listTree(ctx.workspace, r, args.max_entries);
        if (entries.length > 1 && !args.recursive) {
          throw new ToolgateError('invalid_resource', `${r.path} is a directory that is not empty; removing it needs recursive: true`, { path: r.path, reason: 'directory_not_empty', entries: entries.length });
        }
      }
      return { resources: [{ kind: 'path', path: r.path, access: 'delete' }], prepared: r };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const r = ctx.prepared;
        const name = r.components[r.components.length - 1] as string;
        const dir = r.components.slice(0, -1);
        const kind = r.kind as 'file' | 'directory' | 'symlink';
        if (kind === 'file') {
          const tracked = await trackedEntries(ctx.workspace.root, r.path, ctx.signal);
          // Read a slice at a time (a 200 MB file held the event loop ~0.1 s read at once).
          const target = await openWriteTargetPaced(ctx.workspace, { path: r.path, dir, name, exists: true, parent: r.parent }, { createParents: false, maxBytes: FS_DELETE_MAX_BYTES });
          try {
            if (target.state.kind !== 'file' || target.state.ino !== r.identity?.ino) {
              return failedOutcome({ code: 'precondition_failed', message: `${r.path} changed since it was checked`, data: { path: r.path, reason: 'changed_since_check' } });
            }
            if (target.linked) await refuseSecretLink(ctx.workspace, r.path, target.linked, ctx.signal);
            const done = await commitFileSet(ctx, [{ target, after: null }], { value: false });
            if (!done.ok) return done.outcome;
            const c = done.changes[0];
            return {
              status: 'succeeded',
              result: { path: r.path, kind, git: gitState(tracked, kind, 1), tracked_entries: tracked, entries_removed: 1, preimage_artifact: c?.op === 'file' ? (c.before?.artifact ?? null) : null, revision: done.revision },
              evidence: { workspace: ctx.workspace.id, revision: done.revision, changes: done.changes },
              artifacts: done.artifacts,
            };
          } finally {
            target.close();
          }
        }

        const opened = openDirectoryBeneath(ctx.workspace.rootFd, ctx.workspace.root, dir, { create: false });
        try {
          if (opened.identity.ino !== r.parent.ino || opened.identity.dev !== r.parent.dev) {
            return failedOutcome({ code: 'precondition_failed', message: `the directory of ${r.path} changed`, data: { path: r.path, reason: 'parent_changed' } });
          }
          // Up to 100,000 entries and 256 MiB: every step lets the event loop run now and then (TreePacer).
          const pacer = new TreePacer();
          const entries = await walkTree(opened.fd, name, { maxEntries: ctx.args.max_entries, maxBytes: FS_DELETE_MAX_BYTES }, true, pacer);
          const top = entries[0];
          if (!top || top.ino !== r.identity?.ino || top.dev !== r.identity.dev) {
            return failedOutcome({ code: 'precondition_failed', message: `${r.path} changed since it was checked`, data: { path: r.path, reason: 'changed_since_check' } });
          }
          await assertAllWritable(ctx.workspace, r.path, entries, pacer);
          const files = entries.filter((e) => e.kind === 'file').length;
          const tracked = await trackedEntries(ctx.workspace.root, r.path, ctx.signal);
          // Every removed file's bytes go into one artifact (one fsync), the manifest into another.
          const artifacts: ArtifactRef[] = [];
          const bundle = new PreimageBundle();
          const images: (FileImage | null)[] = [];
          for (const e of entries) {
            if (pacer.due()) await pacer.pause();
            images.push(e.kind === 'file' ? await bundle.addPaced({ data: e.data ?? Buffer.alloc(0), mode: e.mode }, pacer) : null);
          }
          const bref = await bundle.sealPaced(ctx.artifacts, `preimages:${r.path}`, pacer);
          if (bref) artifacts.push(bref);
          const manifest: ManifestEntry[] = entries.map((e, i) => {
            const img = images[i];
            if (img) return { path: e.path, kind: 'file', mode: e.mode, sha256: img.sha256, artifact: img.artifact ?? '', offset: img.offset, size: img.size };
            return e.kind === 'symlink' ? { path: e.path, kind: e.kind, mode: e.mode, target: e.target ?? '' } : { path: e.path, kind: e.kind, mode: e.mode };
          });
          const mref = await putPaced(ctx.artifacts, JSON.stringify({ path: r.path, entries: manifest }), 'application/json', `tree:${r.path}`, pacer);
          artifacts.push(mref);

          // Move the whole tree aside in one rename, check it is what was read, then remove it.
          const trash = tempName('del'); // names its owner, for the sweep after a crash
          // The manifest and the preimages under their names on disk before anything moves: a
          // power loss after the effect leaves a tree reconcile can name and fs.undo restore.
          await ctx.artifacts.durable?.();
          await ctx.markSent(treeIntentOf({ path: r.path, trash, identity: { dev: top.dev, ino: top.ino }, manifest: mref.digest, entries: entries.length }));
          const site = { root: ctx.workspace.root, dir: dir.join('/'), path: r.path, dirfd: opened.fd, parent: opened.identity, name, expected: { kind: 'other' as const, dev: top.dev, ino: top.ino } };
          recheckSite(site);
          renameSync(procPath(opened.fd, name), procPath(opened.fd, trash));
          failpoint('during_effect'); // the tree is in the trash, not yet removed
          const moved = await walkTree(opened.fd, trash, { maxEntries: ctx.args.max_entries + 1, maxBytes: Number.MAX_SAFE_INTEGER }, false, pacer);
          if (!sameEntries(moved, entries.map(({ data: _d, ...rest }) => rest))) {
            renameSync(procPath(opened.fd, trash), procPath(opened.fd, name));
            return failedOutcome({ code: 'precondition_failed', message: `${r.path} changed while it was being deleted; it was put back`, data: { path: r.path, reason: 'changed_since_check' } });
          }
          const removed = await removeTree(opened.fd, trash, pacer);
          await syncDirectories([opened.fd]);
          const revision = await ctx.revision.advance();
          return {
            status: 'succeeded',
            result: { path: r.path, kind, git: gitState(tracked, kind, files), tracked_entries: tracked, entries_removed: removed, preimage_artifact: mref.digest, revision },
            evidence: { workspace: ctx.workspace.id, revision, changes: [{ op: 'tree', path: r.path, manifest: mref.digest, entries: entries.length }] },
            artifacts,
          };
        } finally {
          if (opened.fd !== ctx.workspace.rootFd) closeSync(opened.fd);
        }
      }),
  });
}
