import { closeSync, linkSync, lstatSync, renameSync, unlinkSync } from 'node:fs';
import { z } from 'zod';
import { ToolgateError, sha256Hex, type ArtifactRef } from '../../protocol/index.js';
import { asOutcome, defineTool, failedOutcome, type ToolDefinition } from '../../registry/index.js';
import {
  assertWritable,
  openDirectoryBeneath,
  openWriteTarget,
  procPath,
  recheckSite,
  refuseSecretLink,
  renameNoReplace,
  resolveStable,
  storePreimage,
  syncDirectories,
  leafStateOf,
  type ChangeRecord,
  type FileImage,
  type OpenedTarget,
  type ResolvedPath,
} from '../../resources/index.js';
import { reconcileFsRename, renameIntentOf } from './reconcile.js';
import { failpoint } from '../../protocol/index.js';

export const FS_RENAME_MAX_PREIMAGE_BYTES = 64 * 1024 * 1024;

export const fsRenameArgs = z.strictObject({
  from: z.string().min(1),
  to: z.string().min(1),
  overwrite: z.boolean().default(false).describe('Replace an existing file at `to` (its preimage is kept)'),
});
export type FsRenameArgs = z.infer<typeof fsRenameArgs>;

export const fsRenameResult = z.strictObject({
  from: z.string(),
  to: z.string(),
  kind: z.enum(['file', 'directory', 'symlink']),
  overwritten: z.boolean(),
  overwritten_preimage: z.string().nullable(),
  revision: z.string(),
});
export type FsRenameResult = z.infer<typeof fsRenameResult>;

interface Prepared {
  readonly from: ResolvedPath;
  readonly to: ResolvedPath;
}

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

/** renameat2(RENAME_NOREPLACE) with the refusals fs.rename reports; `unsupported` means fall back. */
function tryRenameNoReplace(fromDirfd: number, fromName: string, toDirfd: number, toName: string): 'moved' | 'unsupported' | 'exists' | 'cross_device' {
  try {
    return renameNoReplace(fromDirfd, fromName, toDirfd, toName);
  } catch (e) {
    if (errno(e) === 'EEXIST' || errno(e) === 'ENOTEMPTY') return 'exists';
    if (errno(e) === 'EXDEV') return 'cross_device';
    throw e;
  }
}

/** fs.rename: a real rename(2) beneath the root (the inode moves), refusing to overwrite unless asked. */
export function createFsRename(): ToolDefinition<FsRenameArgs, FsRenameResult, Prepared> {
  return defineTool<FsRenameArgs, FsRenameResult, Prepared>({
    name: 'fs.rename',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'Rename or move a file, directory or symbolic link (the link itself) within the workspace; identity is preserved. Fails with already_exists unless overwrite: true, which keeps the overwritten file as a preimage for undo.',
    owner: 'toolgate',
    effect_class: 'write',
    reversible: true,
    capabilities: ['fs.write'],
    args: fsRenameArgs,
    result: fsRenameResult,
    timeout_ms: 30_000,
    max_output_bytes: 16 * 1024,
    cancellation: 'uninterruptible',
    idempotency: 'reconcile',
    undoable: true,
    reconcile: reconcileFsRename,
    normalize(args, ctx) {
      const from = resolveStable(ctx.workspace, args.from, { leafNoFollow: true });
      if (!from.exists) throw new ToolgateError('not_found', `no such file or directory: ${from.path}`, { path: from.path });
      if (from.path === '.') throw new ToolgateError('invalid_resource', 'the workspace root cannot be renamed', { path: '.' });
      if (from.kind === 'other') throw new ToolgateError('unsupported', `${from.path} is neither a file, a directory nor a link`, { path: from.path });
      const to = resolveStable(ctx.workspace, args.to, { leafNoFollow: true });
      if (to.path === '.') throw new ToolgateError('invalid_resource', 'cannot rename onto the workspace root', { path: '.' });
      assertWritable(ctx.workspace, from.path, args.from);
      assertWritable(ctx.workspace, to.path, args.to);
      if (to.path === from.path) throw new ToolgateError('invalid_resource', 'from and to are the same path', { path: to.path });
      if (to.path.startsWith(`${from.path}/`)) throw new ToolgateError('invalid_resource', `cannot move ${from.path} into itself`, { from: from.path, to: to.path });
      if (to.exists && from.identity && to.identity && to.identity.dev === from.identity.dev && to.identity.ino === from.identity.ino) {
        // rename(2) between two names of one inode succeeds and does nothing: refuse instead.
        throw new ToolgateError('invalid_resource', `${from.path} and ${to.path} are the same file (hard links of one inode)`, { from: from.path, to: to.path, reason: 'same_file' });
      }
      if (to.exists && to.kind !== 'file') throw new ToolgateError('invalid_resource', `${to.path} exists and is not a regular file; only a file is overwritten`, { path: to.path, kind: to.kind });
      return {
        resources: [
          { kind: 'path', path: from.path, access: 'delete' },
          { kind: 'path', path: to.path, access: to.exists ? 'write' : 'create' },
        ],
        prepared: { from, to },
      };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const { from, to } = ctx.prepared;
        const fromName = from.components[from.components.length - 1] as string;
        const fromDir = openDirectoryBeneath(ctx.workspace.rootFd, ctx.workspace.root, from.components.slice(0, -1), { create: false });
        let target: OpenedTarget | null = null;
        try {
          if (fromDir.identity.ino !== from.parent.ino || fromDir.identity.dev !== from.parent.dev) {
            return failedOutcome({ code: 'precondition_failed', message: `the directory of ${from.path} changed`, data: { path: from.path, reason: 'parent_changed' } });
          }
          const fromState = leafStateOf(fromDir.fd, fromName);
          if (fromState.kind === 'absent' || fromState.ino !== from.identity?.ino || fromState.dev !== from.identity.dev) {
            return failedOutcome({ code: 'precondition_failed', message: `${from.path} changed since it was checked`, data: { path: from.path, reason: 'changed_since_check' } });
          }
          const toComponents = to.components;
          target = openWriteTarget(
            ctx.workspace,
            { path: to.path, dir: toComponents.slice(0, -1), name: toComponents[toComponents.length - 1] as string, exists: to.exists, parent: to.parent },
            { createParents: false, maxBytes: FS_RENAME_MAX_PREIMAGE_BYTES },
          );
          if (target.state.kind !== 'absent' && target.state.dev === fromState.dev && target.state.ino === fromState.ino) {
            return failedOutcome({ code: 'invalid_resource', message: `${from.path} and ${to.path} are the same file (hard links of one inode)`, data: { from: from.path, to: to.path, reason: 'same_file' } });
          }
          if (target.state.kind !== 'absent' && !ctx.args.overwrite) {
            return failedOutcome({ code: 'already_exists', message: `${to.path} exists; pass overwrite: true to replace it`, data: { path: to.path } });
          }
          const kind = from.kind as 'file' | 'directory' | 'symlink';
          let afterSha: string | null = null;
          if (kind === 'file') {
            const src = openWriteTarget(ctx.workspace, { path: from.path, dir: from.components.slice(0, -1), name: fromName, exists: true, parent: from.parent }, { createParents: false, maxBytes: FS_RENAME_MAX_PREIMAGE_BYTES });
            try {
              afterSha = src.current ? sha256Hex(src.current.data) : null;
            } finally {
              src.close();
            }
          }
          if (target.linked) await refuseSecretLink(ctx.workspace, to.path, target.linked, ctx.signal);
          const artifacts: ArtifactRef[] = [];
          const overwritten: FileImage | null = target.current ? storePreimage(ctx.artifacts, to.path, target.current, artifacts) : null;

          await ctx.markSent(renameIntentOf({ from: from.path, to: to.path, entry: kind, identity: { dev: fromState.dev, ino: fromState.ino }, after_sha256: afterSha, overwritten }));
          const fromSite = { root: ctx.workspace.root, dir: from.components.slice(0, -1).join('/'), path: from.path, dirfd: fromDir.fd, parent: fromDir.identity, name: fromName, expected: leafStateOf(fromDir.fd, fromName) };
          if (fromSite.expected.kind === 'absent' || fromSite.expected.ino !== fromState.ino) {
            return failedOutcome({ code: 'precondition_failed', message: `${from.path} changed since it was checked`, data: { path: from.path, reason: 'changed_since_check' } });
          }
          recheckSite(fromSite);
          recheckSite({ root: ctx.workspace.root, dir: target.dir, path: to.path, dirfd: target.dirfd, parent: target.parent, name: target.name, expected: target.state });
          const src = procPath(fromDir.fd, fromName);
          const dst = procPath(target.dirfd, target.name);
          const atomic = target.state.kind === 'absent' ? tryRenameNoReplace(fromDir.fd, fromName, target.dirfd, target.name) : 'unsupported';
          if (atomic === 'exists') return failedOutcome({ code: 'already_exists', message: `${to.path} was created by someone else`, data: { path: to.path } });
          if (atomic === 'cross_device') return failedOutcome({ code: 'unsupported', message: 'from and to are on different file systems', data: { from: from.path, to: to.path } });
          if (atomic === 'moved') {
            // renameat2(RENAME_NOREPLACE): one step, nothing replaced, no moment with both names.
          } else if (target.state.kind === 'absent' && kind !== 'directory') {
            // Fallback without renameat2: link + unlink never replaces an entry that appeared
            // meanwhile and keeps the inode, but a crash between the two leaves both names.
            try {
              linkSync(src, dst);
            } catch (e) {
              if (errno(e) === 'EEXIST') return failedOutcome({ code: 'already_exists', message: `${to.path} was created by someone else`, data: { path: to.path } });
              throw e;
            }
            unlinkSync(src);
          } else {
            try {
              renameSync(src, dst);
            } catch (e) {
              if (errno(e) === 'EXDEV') return failedOutcome({ code: 'unsupported', message: 'from and to are on different file systems', data: { from: from.path, to: to.path } });
              if (errno(e) === 'ENOTEMPTY' || errno(e) === 'EEXIST') return failedOutcome({ code: 'already_exists', message: `${to.path} was created by someone else`, data: { path: to.path } });
              throw e;
            }
          }
          failpoint('during_effect'); // moved, the directories not yet synced
          await syncDirectories([fromDir.fd, target.dirfd]);
          const revision = await ctx.revision.advance();
          const moved = lstatSync(dst);
          const change: ChangeRecord = { op: 'rename', from: from.path, to: to.path, kind, identity: { dev: moved.dev, ino: moved.ino }, after_sha256: afterSha, overwritten };
          return {
            status: 'succeeded',
            result: { from: from.path, to: to.path, kind, overwritten: overwritten !== null, overwritten_preimage: overwritten?.artifact ?? null, revision },
            evidence: { workspace: ctx.workspace.id, revision, changes: [change] },
            artifacts,
          };
        } finally {
          target?.close();
          if (fromDir.fd !== ctx.workspace.rootFd) closeSync(fromDir.fd);
        }
      }),
  });
}
