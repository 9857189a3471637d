// The text Codex's apply_patch gives back, from the receipt of the fs.patch call: the original's
// success summary (`A`/`M`/`D` lines, added then modified then deleted, a move listed as `M` at
// its destination) and, for a refusal, the original's error string where it has one. Toolgate's
// typed code is the receipt's error code (`code`); the profile runner appends it as its own line.
import type { ErrorCode, Receipt } from '../../../protocol/index.js';
import { ambiguityText, expectedLinesText } from './map.js';
import type { ParsedPatch, PatchHunk, UpdateChunk } from './parse.js';

export interface ApplyPatchText {
  readonly text: string;
  readonly isError: boolean;
  /** Toolgate's typed code of a failure; null on success. */
  readonly code: ErrorCode | null;
}

interface ResultFile {
  readonly path: string;
  readonly status: 'modified' | 'created' | 'deleted' | 'moved';
}

function record(v: unknown): Readonly<Record<string, unknown>> {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
}

/** The path the patch wrote for a file (`./a` or `/root/a` for the canonical `a`), else the canonical one. */
function samePath(given: string, canonical: string): boolean {
  const parts: string[] = [];
  for (const p of given.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') parts.pop();
    else parts.push(p);
  }
  const norm = parts.join('/');
  return norm === canonical || (given.startsWith('/') && norm.endsWith(`/${canonical}`));
}

function hunkAt(patch: ParsedPatch | undefined, path: unknown): { hunk: PatchHunk; index: number; dest: boolean } | null {
  if (patch === undefined || typeof path !== 'string') return null;
  for (let i = 0; i < patch.hunks.length; i++) {
    const h = patch.hunks[i] as PatchHunk;
    if (samePath(h.path, path)) return { hunk: h, index: i, dest: false };
    if (h.kind === 'update' && h.moveTo !== null && samePath(h.moveTo, path)) return { hunk: h, index: i, dest: true };
  }
  return null;
}

export const SUCCESS_HEADER = 'Success. Updated the following files:';

function success(r: Receipt, patch: ParsedPatch | undefined): ApplyPatchText {
  const files = (record(r.result)['files'] ?? []) as readonly ResultFile[];
  const shown = files.map((f, i) => {
    const h = patch?.hunks[i];
    // The patch's own spelling of the path (relative or absolute), as the original prints it.
    const given = h === undefined ? f.path : h.kind === 'update' && h.moveTo !== null ? h.moveTo : h.path;
    const letter = f.status === 'created' ? 'A' : f.status === 'deleted' ? 'D' : 'M';
    return { letter, path: given };
  });
  const order = ['A', 'M', 'D'];
  const lines = order.flatMap((l) => shown.filter((s) => s.letter === l).map((s) => `${s.letter} ${s.path}\n`));
  return { text: `${SUCCESS_HEADER}\n${lines.join('')}`, isError: false, code: null };
}

/** The original's error string for a refusal it has one for (or one it would have met at that step), else null. */
function originalText(code: ErrorCode, d: Readonly<Record<string, unknown>>, at: ReturnType<typeof hunkAt>, given: string, chunk: UpdateChunk | undefined): string | null {
  const kind = at?.hunk.kind;
  // A line-range edit whose lines changed since the profile read the file: the chunk is no longer there.
  if (chunk && (code === 'no_match' || (code === 'precondition_failed' && d['reason'] !== 'stale_sha256'))) return expectedLinesText(given, chunk);
  if (chunk && code === 'ambiguous_match' && Array.isArray(d['lines'])) return ambiguityText(expectedLinesText(given, chunk), (d['lines'] as number[]).map((l) => l - 1));
  if (code === 'not_found' && kind === 'update' && !at?.dest) return `Failed to read file to update ${given}: No such file or directory (os error 2)`;
  if (code === 'not_found' && kind === 'delete') return `Failed to read ${given}: No such file or directory (os error 2)`;
  if (code === 'invalid_resource' && kind === 'delete' && d['kind'] === 'directory') return `Failed to delete file ${given}: Is a directory (os error 21)`;
  // The original overwrites here (fixtures 011 and 010); Toolgate refuses and says how to go on.
  if (code === 'already_exists' && kind === 'add') return `Failed to write file ${given}: the file already exists, and Add File does not replace a file here; change it with *** Update File: ${given}`;
  if (code === 'already_exists' && at?.dest) return `Failed to write file ${given}: the file already exists, and *** Move to: does not replace a file here; move to a free path, or delete ${given} first in another patch`;
  return null;
}

function failure(r: Receipt, patch: ParsedPatch | undefined): ApplyPatchText {
  const code = r.error?.code ?? 'internal_error';
  const d = record(r.error?.data);
  const at = hunkAt(patch, d['path']);
  const fail = (text: string): ApplyPatchText => ({ text, isError: true, code });
  const given = at ? (at.dest && at.hunk.kind === 'update' && at.hunk.moveTo !== null ? at.hunk.moveTo : at.hunk.path) : String(d['path'] ?? '');
  const chunk = at?.hunk.kind === 'update' && typeof d['edit'] === 'number' ? at.hunk.chunks[d['edit'] - 1] : undefined;
  const original = originalText(code, d, at, given, chunk);
  if (original !== null) return fail(original);
  return fail(r.error?.message ?? `apply_patch ended ${r.status}`);
}

/** The original's text for the receipt of the fs.patch call a patch became. */
export function renderApplyPatchResult(receipt: Receipt, patch?: ParsedPatch): ApplyPatchText {
  return receipt.status === 'succeeded' ? success(receipt, patch) : failure(receipt, patch);
}
