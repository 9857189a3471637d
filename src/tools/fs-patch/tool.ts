import { z } from 'zod';
import { ToolgateError, sha256Hex } from '../../protocol/index.js';
import { asOutcome, defineTool, type ToolDefinition } from '../../registry/index.js';
import {
  commitFileSet,
  openWriteTarget,
  refuseSecretLink,
  resolveWriteTarget,
  type FileBytes,
  type OpenedTarget,
  type PlannedWrite,
} from '../../resources/index.js';
import { appliedEdit } from './edits.js';
import { formatDiff, type FileDiff } from './diff.js';
import { FS_PATCH_MAX_FILES, FS_PATCH_MAX_FILE_BYTES, fileEntry, type FileEntry } from './file-entry.js';
import { parseUnifiedDiff } from './parse.js';
import { createsFile, plan, removesFile, type Change, type FilePlan, type PreparedFile } from './plan.js';
import { reconcileFsPatch } from './reconcile.js';

export { FS_PATCH_MAX_FILES, FS_PATCH_MAX_FILE_BYTES } from './file-entry.js';

export const fsPatchArgs = z
  .strictObject({
    files: z.array(fileEntry).min(1).max(FS_PATCH_MAX_FILES).optional(),
    unified_diff: z.string().min(1).max(16 * 1024 * 1024).optional(),
  })
  .refine((a) => (a.files === undefined) !== (a.unified_diff === undefined), { message: 'give exactly one of files or unified_diff' });
export type FsPatchArgs = z.infer<typeof fsPatchArgs>;

export const fsPatchResult = z.strictObject({
  files: z.array(
    z.strictObject({
      path: z.string(),
      status: z.enum(['modified', 'created', 'deleted', 'moved']),
      /** A moved file's old path. */
      from: z.string().optional(),
      sha256: z.string().nullable(),
      hunks: z.number().int(),
      /** Structured edits: where each landed in the file as read (and what a whitespace match matched). */
      edits: z.array(appliedEdit).optional(),
    }),
  ),
  diff: z.string(),
  revision: z.string(),
});
export type FsPatchResult = z.infer<typeof fsPatchResult>;

type Workspace = Parameters<typeof resolveWriteTarget>[0];

function prepare(ws: Workspace, path: string, change: Change, seen: Set<string>): PreparedFile {
  const target = resolveWriteTarget(ws, path, { createParents: createsFile(change) });
  if (seen.has(target.path)) throw new ToolgateError('invalid_arguments', `${target.path} appears twice in one patch`, { faults: [{ pointer: '', message: `duplicate path ${target.path}` }] });
  seen.add(target.path);
  return { target, change };
}

/** One files[] entry as the changes it makes: a move is its source (removed) then its destination. */
function prepareEntry(ws: Workspace, f: FileEntry, seen: Set<string>): PreparedFile[] {
  if (f.create !== undefined) return [prepare(ws, f.path, { kind: 'create', content: f.create, overwrite: f.overwrite, expected_sha256: f.expected_sha256 }, seen)];
  if (f.delete === true) return [prepare(ws, f.path, { kind: 'delete', expected_sha256: f.expected_sha256 }, seen)];
  if (f.move_to === undefined) return [prepare(ws, f.path, { kind: 'edits', edits: f.edits ?? [], expected_sha256: f.expected_sha256 }, seen)];
  const to = resolveWriteTarget(ws, f.move_to, { createParents: true });
  const from = prepare(ws, f.path, { kind: 'move_from', edits: f.edits, expected_sha256: f.expected_sha256, to: to.path }, seen);
  if (to.path === from.target.path) throw new ToolgateError('invalid_resource', `move_to names ${to.path} itself`, { from: from.target.path, to: to.path });
  const overwrite = f.overwrite === 'any' ? 'any' : undefined;
  return [from, prepare(ws, f.move_to, { kind: 'move_to', from: from.target.path, overwrite }, seen)];
}

function resultEntry(p: FilePlan & { diff: FileDiff }): FsPatchResult['files'][number] {
  const moved = p.diff.status === 'renamed';
  return {
    path: p.diff.path,
    status: moved ? 'moved' : (p.diff.status as 'modified' | 'created' | 'deleted'),
    ...(moved && p.diff.from !== undefined ? { from: p.diff.from } : {}),
    sha256: p.after ? sha256Hex(p.after.data) : null,
    hunks: p.diff.hunks.length,
    ...(p.edits ? { edits: p.edits } : {}),
  };
}

/** What the result says besides the revision (known only once committed). */
function resultOf(plans: readonly FilePlan[]): Omit<FsPatchResult, 'revision'> {
  // A move's source has no entry of its own: its destination shows the move.
  const shown = plans.filter((p): p is FilePlan & { diff: FileDiff } => p.diff !== null);
  return { files: shown.map(resultEntry), diff: formatDiff(shown.map((p) => p.diff)) };
}

/** fs.patch: structured edits or a unified diff over many files, checked first, then all-or-nothing. */
export function createFsPatch(): ToolDefinition<FsPatchArgs, FsPatchResult, PreparedFile[]> {
  return defineTool<FsPatchArgs, FsPatchResult, PreparedFile[]>({
    name: 'fs.patch',
    module: import.meta.url,
    version: '1.2.0',
    description:
      'Change several files at once, all or nothing: either files:[{path, expected_sha256?, edits:[...]}] or unified_diff (as git diff prints it). An edit is {old, new, replace_all?, match?: "exact"|"whitespace"} (old must occur exactly once, else no_match / ambiguous_match; whitespace matches whole lines ignoring indentation and trailing spaces), {lines: "a:b", new, expect?} (replace lines a..b, 1-based inclusive) or {insert_line: n, new, expect?} (insert after line n, 0 = top). Line edits need expect (the text of those lines as read) or the file\'s expected_sha256, else precondition_failed with the current lines. All edits of a file refer to the file as read (line numbers are never shifted by earlier edits); overlapping edits are refused. Instead of edits, an entry may be {path, create: "content", overwrite?} (already_exists if the file exists, unless overwrite: true with its expected_sha256, or "any"), {path, delete: true} or {path, move_to, edits?, overwrite?: "any"} (already_exists if the destination exists); expected_sha256 binds the file as read. Every file is checked before any is written; a failure restores the earlier files. Returns the unified diff, where each edit landed, and the new revision.',
    owner: 'toolgate',
    effect_class: 'write',
    reversible: true,
    capabilities: ['fs.write'],
    args: fsPatchArgs,
    result: fsPatchResult,
    timeout_ms: 60_000,
    max_output_bytes: 4 * 1024 * 1024,
    cancellation: 'uninterruptible',
    idempotency: 'reconcile',
    undoable: true,
    reconcile: reconcileFsPatch,
    normalize(args, ctx) {
      const seen = new Set<string>();
      const files: PreparedFile[] = args.unified_diff !== undefined
        ? parseUnifiedDiff(args.unified_diff).map((p) => prepare(ctx.workspace, (p.newPath ?? p.oldPath) as string, { kind: 'diff', patch: p }, seen))
        : (args.files ?? []).flatMap((f) => prepareEntry(ctx.workspace, f, seen));
      if (files.length > FS_PATCH_MAX_FILES) throw new ToolgateError('limit_exceeded', `a patch may change at most ${FS_PATCH_MAX_FILES} files`, { files: files.length, limit: FS_PATCH_MAX_FILES });
      return {
        resources: files.map((f) => ({
          kind: 'path' as const,
          path: f.target.path,
          access: removesFile(f.change) ? ('delete' as const) : f.target.exists ? ('write' as const) : ('create' as const),
        })),
        prepared: files,
      };
    },
    execute: (outer) =>
      asOutcome(outer, async (ctx) => {
        const opened: (OpenedTarget | null)[] = [];
        try {
          // Check every file before anything is written.
          const plans: FilePlan[] = [];
          for (const f of ctx.prepared) {
            let o: OpenedTarget | null = null;
            try {
              o = openWriteTarget(ctx.workspace, f.target, { createParents: false, maxBytes: FS_PATCH_MAX_FILE_BYTES });
            } catch (e) {
              if (!(createsFile(f.change) && ToolgateError.isInstance(e) && e.code === 'not_found')) throw e;
            }
            opened.push(o);
            // Diffs, candidates and preimages show the bytes: never those of a secret under another name.
            if (o?.linked) await refuseSecretLink(ctx.workspace, o.path, o.linked, ctx.signal);
            plans.push(await plan(f, o, plans[plans.length - 1]));
          }
          ctx.signal.throwIfAborted();
          const sent = { value: false };
          const writes: PlannedWrite[] = [];
          for (let i = 0; i < ctx.prepared.length; i++) {
            let o = opened[i] ?? null;
            if (o === null) {
              // A created file whose directories do not exist yet: they are made now.
              if (!sent.value) await ctx.markSent();
              sent.value = true;
              o = openWriteTarget(ctx.workspace, (ctx.prepared[i] as PreparedFile).target, { createParents: true, maxBytes: FS_PATCH_MAX_FILE_BYTES });
              opened[i] = o;
            }
            writes.push({ target: o, after: (plans[i] as { after: FileBytes | null }).after });
          }
          // The commit runs up to its first wait (files staged, their fsyncs and the intent's
          // under way); the result is put together while they sync, off the critical path. It is
          // dropped if the commit fails. Whatever happens, the commit is awaited before returning.
          const committing = commitFileSet(ctx, writes, sent);
          let shown: Omit<FsPatchResult, 'revision'> | { readonly error: unknown };
          try {
            shown = resultOf(plans);
          } catch (error) {
            shown = { error };
          }
          const done = await committing;
          if (!done.ok) return done.outcome;
          if ('error' in shown) throw shown.error;
          return {
            status: 'succeeded',
            result: { ...shown, revision: done.revision },
            evidence: { workspace: ctx.workspace.id, revision: done.revision, changes: done.changes },
            artifacts: done.artifacts,
          };
        } finally {
          for (const o of opened) o?.close();
        }
      }),
  });
}
