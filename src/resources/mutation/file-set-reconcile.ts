// Reconcile for the tools that commit a file set (fs.write, fs.patch, fs.undo, fs.delete of a
// file): at markSent they record, per path, the pre-image and the intended post-image digests
// (never the bytes). After a crash, the workspace is compared with both: every path at its
// post-image → completed (the receipt is rebuilt from the intent, undoable); every path at its
// pre-image → released (a retry runs); a mix of the two (a crash between moves) → the replaced
// files put back from their pre-images, released; anything else → unknown, for an operator.
import { z } from 'zod';
import type { Digest } from '../../protocol/index.js';
import type { MutationIntent, MutationReconcileContext, MutationVerdict, PreimageStore } from './context.js';
import { shaAt } from './entry-at.js';
import { rollBackTornSet } from './file-set-rollback.js';
import type { ChangeRecord, FileImage } from './record.js';

const image = z.strictObject({ sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().min(0), mode: z.number().int().min(0).max(0o7777) });
const fileIntent = z.strictObject({ path: z.string(), before: image.nullable(), after: image.nullable(), created_dirs: z.array(z.string()) });
/** `preimages`: the digest of the artifact holding every pre-image, in file order (absent in older records). */
export const fileSetIntent = z.strictObject({ kind: z.literal('files'), files: z.array(fileIntent), preimages: z.string().optional() });
export type FileSetIntent = z.infer<typeof fileSetIntent>;

/** The intent of a file set, from its change records: paths, digests, sizes and modes only. */
export function fileSetIntentOf(changes: readonly ChangeRecord[], preimages: string | null = null): MutationIntent {
  const strip = (i: FileImage | null) => (i === null ? null : { sha256: i.sha256, size: i.size, mode: i.mode });
  const files = changes.flatMap((c) => (c.op === 'file' ? [{ path: c.path, before: strip(c.before), after: strip(c.after), created_dirs: c.created_dirs }] : []));
  return { kind: 'files', files, ...(preimages !== null ? { preimages } : {}) } satisfies FileSetIntent;
}

/** Whether the artifact store holds `digest` (written before the first file moved). */
function stored(artifacts: PreimageStore, digest: string): boolean {
  try {
    artifacts.get(digest as Digest);
    return true;
  } catch {
    return false;
  }
}

/**
 * Where each pre-image's bytes are: in the set's bundle at its offset when the intent names the
 * bundle; else (older records) a one-file set's pre-image is found by its own digest, others are not.
 */
function preimagesOf(artifacts: PreimageStore, intent: FileSetIntent): (FileImage | null)[] {
  const bundle = intent.preimages !== undefined && stored(artifacts, intent.preimages) ? intent.preimages : null;
  let offset = 0;
  return intent.files.map(({ before }) => {
    if (before === null) return null;
    if (bundle !== null) {
      const img = { ...before, artifact: bundle, offset };
      offset += before.size;
      return img;
    }
    const own = `sha256:${before.sha256}`;
    return { ...before, artifact: intent.files.length === 1 && stored(artifacts, own) ? own : null, offset: 0 };
  });
}

export interface FileSetOptions {
  /** What a sent record with no intent means: the crash came before the file set was sent (released), or is unknowable. */
  readonly withoutIntent: 'released' | 'unknown';
  /** Whether finding every path at its pre-image proves nothing happened (false when other steps preceded the file set). */
  readonly preimageMeansReleased: boolean;
}

export async function reconcileFileSet(ctx: MutationReconcileContext, opts: FileSetOptions): Promise<MutationVerdict> {
  if (ctx.intent === null) {
    return opts.withoutIntent === 'released'
      ? { settled: 'released', evidence: { reason: 'no intent was recorded: the crash came before any file was replaced' } }
      : { settled: 'unknown', reason: 'no intent was recorded for this effect' };
  }
  const parsed = fileSetIntent.safeParse(ctx.intent);
  if (!parsed.success) return { settled: 'unknown', reason: 'the recorded intent is not a file set' };
  const files = parsed.data.files;
  const at = files.map((f) => ({ f, sha: shaAt(ctx.workspace, f.path) }));
  const isAfter = at.map(({ f, sha }) => sha === (f.after?.sha256 ?? null));
  const isBefore = at.map(({ f, sha }) => sha === (f.before?.sha256 ?? null));
  if (isAfter.every(Boolean)) {
    const revision = await ctx.revision.advance();
    const before = preimagesOf(ctx.artifacts, parsed.data);
    const changes: ChangeRecord[] = files.map((f, i) => ({
      op: 'file',
      path: f.path,
      before: before[i] ?? null,
      after: f.after === null ? null : { ...f.after, artifact: null, offset: 0 },
      created_dirs: f.created_dirs,
    }));
    return { settled: 'completed', evidence: { workspace: ctx.workspace.id, revision, changes } };
  }
  if (opts.preimageMeansReleased && isBefore.every(Boolean)) {
    return { settled: 'released', evidence: { workspace: ctx.workspace.id, unchanged: files.map((f) => f.path) } };
  }
  // Torn by a crash between two moves: every path at its pre- or post-image. Put the replaced
  // ones back (file-set-rollback.ts); the effect then never happened and a retry runs it whole.
  if (opts.preimageMeansReleased && at.every((_, i) => isAfter[i] || isBefore[i])) {
    const before = preimagesOf(ctx.artifacts, parsed.data);
    const torn = files.flatMap((f, i) => (isAfter[i] && !isBefore[i] ? [{ path: f.path, before: before[i] ?? null }] : []));
    const rolled = await rollBackTornSet(ctx.workspace, ctx.artifacts, torn);
    if (rolled !== null) {
      const revision = await ctx.revision.advance();
      return { settled: 'released', evidence: { workspace: ctx.workspace.id, revision, rolled_back: rolled, unchanged: files.map((f) => f.path).filter((p) => !rolled.includes(p)) } };
    }
  }
  const describe = at.map(({ f, sha }, i) => `${f.path}: ${isAfter[i] ? 'post-image' : isBefore[i] ? 'pre-image' : sha === null ? 'absent' : 'changed since'}`);
  return { settled: 'unknown', reason: `the workspace holds neither the pre- nor the post-images: ${describe.join(', ')}` };
}
