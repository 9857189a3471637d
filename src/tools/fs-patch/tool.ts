import { z } from 'zod';
import { ToolgateError, sha256Hex } from '../../protocol/index.js';
import { asOutcome, defineTool, type ToolDefinition } from '../../registry/index.js';
import {
  commitFileSet,
  openWriteTarget,
  refuseSecretLink,
  resolveWriteTarget,
  usesCrlf,
  writableMode,
  type FileBytes,
  type OpenedTarget,
  type PlannedWrite,
  type WriteTarget,
} from '../../resources/index.js';
import { applyEdits } from './apply.js';
import { appliedEdit, edit, type AppliedEdit, type Edit } from './edits.js';
import { diffHunks, formatDiff, type FileDiff } from './diff.js';
import { applyHunks } from './hunks.js';
import { parseUnifiedDiff, type FilePatch } from './parse.js';
import { decodeText, fromLines, toLines } from './text.js';
import { reconcileFsPatch } from './reconcile.js';

export const FS_PATCH_MAX_FILES = 200;
export const FS_PATCH_MAX_FILE_BYTES = 8 * 1024 * 1024;
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'lowercase hex sha256');

const fileEdits = z.strictObject({
  path: z.string().min(1),
  expected_sha256: sha256.optional(),
  edits: z.array(edit).min(1).max(1000),
});

export const fsPatchArgs = z
  .strictObject({
    files: z.array(fileEdits).min(1).max(FS_PATCH_MAX_FILES).optional(),
    unified_diff: z.string().min(1).max(16 * 1024 * 1024).optional(),
  })
  .refine((a) => (a.files === undefined) !== (a.unified_diff === undefined), { message: 'give exactly one of files or unified_diff' });
export type FsPatchArgs = z.infer<typeof fsPatchArgs>;

export const fsPatchResult = z.strictObject({
  files: z.array(
    z.strictObject({
      path: z.string(),
      status: z.enum(['modified', 'created', 'deleted']),
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

type Change = { readonly kind: 'edits'; readonly edits: Edit[]; readonly expected_sha256: string | undefined } | { readonly kind: 'diff'; readonly patch: FilePatch };

interface PreparedFile {
  readonly target: WriteTarget;
  readonly change: Change;
}

function prepare(ws: Parameters<typeof resolveWriteTarget>[0], path: string, change: Change, seen: Set<string>): PreparedFile {
  const creating = change.kind === 'diff' && change.patch.oldPath === null;
  const target = resolveWriteTarget(ws, path, { createParents: creating });
  if (seen.has(target.path)) throw new ToolgateError('invalid_arguments', `${target.path} appears twice in one patch`, { faults: [{ pointer: '', message: `duplicate path ${target.path}` }] });
  seen.add(target.path);
  return { target, change };
}

/** A patch that leaves a file byte-for-byte as it is would only rewrite it (new inode, new revision): refused. */
function refuseNoChange(path: string, cur: FileBytes | null, after: Uint8Array, mode: number): void {
  if (cur && (cur.mode & 0o777) === (mode & 0o777) && Buffer.from(cur.data).equals(after)) {
    throw new ToolgateError('no_change', `the patch leaves ${path} as it is; nothing to write`, { path });
  }
}

interface FilePlan {
  readonly after: FileBytes | null;
  readonly diff: FileDiff;
  readonly edits?: AppliedEdit[];
}

/** Checks one file and computes its new content; throws the typed domain error on a miss. */
function plan(f: PreparedFile, opened: OpenedTarget | null): FilePlan {
  const path = f.target.path;
  const cur = opened?.current ?? null;
  const { change } = f;
  if (change.kind === 'diff' && change.patch.oldPath === null) {
    if (cur || opened?.state.kind === 'other') throw new ToolgateError('already_exists', `${path} already exists`, { path });
  } else if (!cur) throw new ToolgateError('not_found', `no such file: ${path}`, { path });
  const before = cur ? toLines(decodeText(cur.data, path)) : { lines: [], eofNewline: true };
  const oldMode = cur ? writableMode(cur.mode) : null;
  if (change.kind === 'edits') {
    if (change.expected_sha256 !== undefined && cur && sha256Hex(cur.data) !== change.expected_sha256) {
      throw new ToolgateError('precondition_failed', `${path} does not have the expected sha256`, { path, reason: 'stale_sha256', expected_sha256: change.expected_sha256, actual_sha256: sha256Hex(cur.data) });
    }
    const text = fromLines(before);
    const { text: next, applied } = applyEdits(path, text, change.edits, { crlf: cur ? usesCrlf(cur.data) : false, boundBySha: change.expected_sha256 !== undefined });
    const afterLines = toLines(next);
    const bytes = Buffer.from(next, 'utf8');
    refuseNoChange(path, cur, bytes, oldMode ?? 0o644);
    return {
      after: { data: bytes, mode: oldMode ?? 0o644, ...(cur?.uid !== undefined && cur.gid !== undefined ? { uid: cur.uid, gid: cur.gid } : {}) },
      diff: { path, status: 'modified', oldMode, newMode: oldMode, hunks: diffHunks(before, afterLines) },
      // Exact edits are placed where the diff shows; the new kinds say where they landed and what they matched.
      ...(applied.some((x) => x.match !== 'exact') ? { edits: applied } : {}),
    };
  }
  const { after, hunks } = applyHunks(path, before, change.patch.hunks);
  if (change.patch.newPath === null) {
    if (after.lines.length !== 0) throw new ToolgateError('no_match', `the diff deletes ${path} but the file has more lines than it removes`, { path, candidates: [] });
    return { after: null, diff: { path, status: 'deleted', oldMode, newMode: null, hunks } };
  }
  // parse admits only git's 100644 / 100755; the permission bits alone are kept, never set-id or sticky.
  const mode = change.patch.newMode !== null ? change.patch.newMode & 0o777 : (oldMode ?? 0o644);
  const bytes = Buffer.from(fromLines(after), 'utf8');
  refuseNoChange(path, cur, bytes, mode);
  return {
    after: { data: bytes, mode, ...(cur?.uid !== undefined && cur.gid !== undefined ? { uid: cur.uid, gid: cur.gid } : {}) },
    diff: { path, status: cur ? 'modified' : 'created', oldMode, newMode: mode, hunks },
  };
}

/** fs.patch: structured edits or a unified diff over many files, checked first, then all-or-nothing. */
export function createFsPatch(): ToolDefinition<FsPatchArgs, FsPatchResult, PreparedFile[]> {
  return defineTool<FsPatchArgs, FsPatchResult, PreparedFile[]>({
    name: 'fs.patch',
    module: import.meta.url,
    version: '1.1.0',
    description:
      'Change several files at once, all or nothing: either files:[{path, expected_sha256?, edits:[...]}] or unified_diff (as git diff prints it). An edit is {old, new, replace_all?, match?: "exact"|"whitespace"} (old must occur exactly once, else no_match / ambiguous_match; whitespace matches whole lines ignoring indentation and trailing spaces), {lines: "a:b", new, expect?} (replace lines a..b, 1-based inclusive) or {insert_line: n, new, expect?} (insert after line n, 0 = top). Line edits need expect (the text of those lines as read) or the file\'s expected_sha256, else precondition_failed with the current lines. All edits of a file refer to the file as read (line numbers are never shifted by earlier edits); overlapping edits are refused. Every file is checked before any is written; a failure restores the earlier files. Returns the unified diff, where each edit landed, and the new revision.',
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
        : (args.files ?? []).map((f) => prepare(ctx.workspace, f.path, { kind: 'edits', edits: f.edits, expected_sha256: f.expected_sha256 }, seen));
      if (files.length > FS_PATCH_MAX_FILES) throw new ToolgateError('limit_exceeded', `a patch may change at most ${FS_PATCH_MAX_FILES} files`, { files: files.length, limit: FS_PATCH_MAX_FILES });
      return {
        resources: files.map((f) => ({
          kind: 'path' as const,
          path: f.target.path,
          access: f.change.kind === 'diff' && f.change.patch.newPath === null ? ('delete' as const) : f.target.exists ? ('write' as const) : ('create' as const),
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
              const creating = f.change.kind === 'diff' && f.change.patch.oldPath === null;
              if (!(creating && ToolgateError.isInstance(e) && e.code === 'not_found')) throw e;
            }
            opened.push(o);
            // Diffs, candidates and preimages show the bytes: never those of a secret under another name.
            if (o?.linked) await refuseSecretLink(ctx.workspace, o.path, o.linked, ctx.signal);
            plans.push(plan(f, o));
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
          const done = await commitFileSet(ctx, writes, sent);
          if (!done.ok) return done.outcome;
          const diffs = plans.map((p) => p.diff);
          return {
            status: 'succeeded',
            result: {
              files: plans.map((p) => ({
                path: p.diff.path,
                status: p.diff.status,
                sha256: p.after ? sha256Hex(p.after.data) : null,
                hunks: p.diff.hunks.length,
                ...(p.edits ? { edits: p.edits } : {}),
              })),
              diff: formatDiff(diffs),
              revision: done.revision,
            },
            evidence: { workspace: ctx.workspace.id, revision: done.revision, changes: done.changes },
            artifacts: done.artifacts,
          };
        } finally {
          for (const o of opened) o?.close();
        }
      }),
  });
}
