import { z } from 'zod';
import { ToolgateError, sha256Hex } from '../../protocol/index.js';
import { asOutcome, defineTool, failedOutcome, type ToolDefinition } from '../../registry/index.js';
import {
  commitFileSet,
  openWriteTarget,
  refuseSecretLink,
  removeCreatedDirs,
  resolveWriteTarget,
  writableMode,
  type FileBytes,
  type OpenedTarget,
  type WriteTarget,
} from '../../resources/index.js';
import { applyNewlines, withExecutable } from './content.js';
import { reconcileFsWrite } from './reconcile.js';

/** Largest file fs.write creates or replaces (decoded bytes). */
export const FS_WRITE_MAX_BYTES = 8 * 1024 * 1024;
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'lowercase hex sha256');

export const fsWriteArgs = z
  .strictObject({
    path: z.string().min(1),
    content: z.string().max(Math.ceil((FS_WRITE_MAX_BYTES * 4) / 3) + 4),
    encoding: z.enum(['utf-8', 'base64']).default('utf-8'),
    mode: z.enum(['create', 'replace', 'create_or_replace']).default('create').describe('create fails if the file exists; replace needs expected_sha256'),
    expected_sha256: sha256.optional().describe('sha256 of the current file: the write fails if it changed'),
    executable: z.boolean().optional().describe('Default keeps the current bit (off for a new file)'),
    newline: z.enum(['preserve', 'lf', 'crlf']).default('preserve'),
    create_parents: z.boolean().default(false),
  })
  .refine((a) => a.mode !== 'replace' || a.expected_sha256 !== undefined, { message: 'mode replace needs expected_sha256', path: ['expected_sha256'] })
  .refine((a) => a.encoding === 'utf-8' || a.newline === 'preserve', { message: 'newline conversion applies to utf-8 content only', path: ['newline'] });
export type FsWriteArgs = z.infer<typeof fsWriteArgs>;

export const fsWriteResult = z.strictObject({
  path: z.string(),
  created: z.boolean(),
  sha256: z.string(),
  size: z.number().int(),
  mode: z.string(),
  previous_sha256: z.string().nullable(),
  preimage_artifact: z.string().nullable(),
  created_dirs: z.array(z.string()),
  revision: z.string(),
});
export type FsWriteResult = z.infer<typeof fsWriteResult>;

interface Prepared {
  readonly target: WriteTarget;
  readonly bytes: Buffer;
}

/** fs.write: create or replace one whole file, atomically, never through a link. */
export function createFsWrite(): ToolDefinition<FsWriteArgs, FsWriteResult, Prepared> {
  return defineTool<FsWriteArgs, FsWriteResult, Prepared>({
    name: 'fs.write',
    module: import.meta.url,
    version: '1.0.0',
    description:
      'Create or replace a whole file beneath the workspace root. mode=create fails if it exists; mode=replace needs expected_sha256 of the current file. Atomic (temp file, fsync, rename), never through a symbolic link; the preimage is kept so the receipt can be undone.',
    owner: 'toolgate',
    effect_class: 'write',
    reversible: true,
    capabilities: ['fs.write'],
    args: fsWriteArgs,
    result: fsWriteResult,
    timeout_ms: 30_000,
    max_output_bytes: 64 * 1024,
    cancellation: 'uninterruptible',
    idempotency: 'reconcile',
    undoable: true,
    reconcile: reconcileFsWrite,
    normalize(args, ctx) {
      const bytes = args.encoding === 'base64' ? Buffer.from(args.content, 'base64') : Buffer.from(args.content, 'utf8');
      if (bytes.length > FS_WRITE_MAX_BYTES) {
        throw new ToolgateError('limit_exceeded', `content is ${bytes.length} bytes; the limit is ${FS_WRITE_MAX_BYTES}`, { size: bytes.length, limit: FS_WRITE_MAX_BYTES });
      }
      const target = resolveWriteTarget(ctx.workspace, args.path, { createParents: args.create_parents });
      return { resources: [{ kind: 'path', path: target.path, access: target.exists ? 'write' : 'create' }], prepared: { target, bytes } };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const { args, prepared } = ctx;
        const sent = { value: false };
        let opened: OpenedTarget;
        try {
          opened = openWriteTarget(ctx.workspace, prepared.target, { createParents: false, maxBytes: FS_WRITE_MAX_BYTES });
        } catch (e) {
          if (!(ToolgateError.isInstance(e) && e.code === 'not_found' && args.create_parents)) throw e;
          await ctx.markSent(); // directories are about to be made
          sent.value = true;
          opened = openWriteTarget(ctx.workspace, prepared.target, { createParents: true, maxBytes: FS_WRITE_MAX_BYTES });
        }
        try {
          // The bytes about to be kept as a preimage must not be a secret under another name.
          if (opened.linked) await refuseSecretLink(ctx.workspace, opened.path, opened.linked, ctx.signal);
          const plan = { target: opened, after: null };
          const refuse = (code: 'already_exists' | 'not_found' | 'precondition_failed', message: string, data: Record<string, unknown>) => {
            removeCreatedDirs(ctx, [plan]);
            return failedOutcome<FsWriteResult>({ code, message, data: { path: opened.path, ...data } });
          };
          const current = opened.current;
          const currentSha = current ? sha256Hex(current.data) : null;
          if (args.mode === 'create' && current) return refuse('already_exists', `${opened.path} already exists`, { sha256: currentSha });
          if (args.mode === 'replace' && !current) return refuse('not_found', `no such file: ${opened.path}`, {});
          if (args.expected_sha256 !== undefined && args.expected_sha256 !== currentSha) {
            return refuse('precondition_failed', `${opened.path} does not have the expected sha256`, { reason: 'stale_sha256', expected_sha256: args.expected_sha256, actual_sha256: currentSha });
          }
          const after: FileBytes = {
            data: args.encoding === 'utf-8' ? applyNewlines(prepared.bytes, args.newline, current?.data ?? null) : prepared.bytes,
            mode: withExecutable(writableMode(current?.mode ?? 0o644), args.executable),
            ...(current?.uid !== undefined && current.gid !== undefined ? { uid: current.uid, gid: current.gid } : {}),
          };
          const done = await commitFileSet(ctx, [{ target: opened, after }], sent);
          if (!done.ok) return done.outcome;
          const change = done.changes[0];
          const preimage = change?.op === 'file' ? (change.before?.artifact ?? null) : null;
          return {
            status: 'succeeded',
            result: {
              path: opened.path,
              created: current === null,
              sha256: sha256Hex(after.data),
              size: after.data.length,
              mode: after.mode.toString(8).padStart(4, '0'),
              previous_sha256: currentSha,
              preimage_artifact: preimage,
              created_dirs: [...opened.created_dirs],
              revision: done.revision,
            },
            evidence: { workspace: ctx.workspace.id, revision: done.revision, changes: done.changes },
            artifacts: done.artifacts,
          };
        } finally {
          opened.close();
        }
      }),
  });
}
