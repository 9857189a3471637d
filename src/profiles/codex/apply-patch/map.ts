// A parsed apply_patch as ONE fs.patch call: Add File → `create`, Delete File → `delete: true`,
// Update File → `edits` (and `move_to`). fs.patch checks every file before writing any and
// commits them all or none, where the original applies hunk after hunk (fixture 015), and it
// refuses an Add over an existing file (the original overwrites it, fixture 011) and a move onto
// one (fixture 010).
//
// Placing a chunk. Given the file's text (what the profile read), the chunk is located the way
// the original does it — the `@@` line first, then the old lines after it, each with the four
// seek_sequence levels, in file order, `*** End of File` at the end — except that a choice the
// patch does not make is refused: an `@@` line, or a block of old lines without an `@@` line
// before it, that is at more than one place (at the first level that finds it) is
// ambiguous_match, where the original takes the first. After a unique `@@` line the first place
// is the patch's choice, as the format defines it. The edit then carries the FILE's own text of those lines as its `old` (so whichever
// level matched, fs.patch matches exactly and re-checks it at the point of effect: a file changed
// since is refused, not patched at a guess) and, as `new`, the file's text for context lines and
// the model's for added ones. When that text is at more than one place in the whole file (the
// `@@` line or the chunk order chose one), the edit is a line range bound by `expect` instead.
// Without the file's text, each chunk is an exact text edit of its own lines; the `@@` line and
// the tolerance levels are then not used.
import type { ErrorCode } from '../../../protocol/index.js';
import type { ParsedPatch, PatchHunk, UpdateChunk } from './parse.js';
import { seekLines, type SeekLevel } from './seek.js';

export type FsPatchEdit =
  | { readonly old: string; readonly new: string }
  | { readonly lines: string; readonly new: string; readonly expect: string }
  | { readonly insert_line: number; readonly new: string; readonly expect?: string };

export type FsPatchEntry =
  | { readonly path: string; readonly create: string }
  | { readonly path: string; readonly delete: true }
  | { readonly path: string; readonly edits: readonly FsPatchEdit[]; readonly move_to?: string };

export interface FsPatchCall {
  readonly files: readonly FsPatchEntry[];
}

/** Where each chunk landed (1-based lines of the file as read) and how it was matched; null without the file's text. */
export interface PlacedChunk {
  readonly start_line: number;
  readonly end_line: number;
  readonly level: SeekLevel | 'append';
}

export type Mapped =
  | { readonly ok: true; readonly arguments: FsPatchCall; readonly placed: readonly (readonly (PlacedChunk | null)[])[] }
  | { readonly ok: false; readonly code: ErrorCode; readonly text: string };

/** The file's current text (UTF-8), null when there is no such file, undefined when not known. */
export type FileText = (path: string) => string | null | undefined;

export const NO_FILES_MODIFIED = 'No files were modified.';
const ENOENT = 'No such file or directory (os error 2)';

export function expectedLinesText(path: string, chunk: UpdateChunk): string {
  return `Failed to find expected lines in ${path}:\n${chunk.oldLines.join('\n')}`;
}

export function contextText(path: string, context: string): string {
  return `Failed to find context '${context}' in ${path}`;
}

/** The original's wording, then why Toolgate did not take the first place. */
export function ambiguityText(original: string, at: readonly number[]): string {
  const lines = at.slice(0, 10).map((i) => i + 1).join(', ');
  return `${original}\nThese lines are at ${at.length} places (lines ${lines}${at.length > 10 ? ', …' : ''}); add context lines or an @@ line to choose one.`;
}

class Refused extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly text: string,
  ) {
    super(text);
  }
}

interface FileLines {
  /** The lines without their line ending, as compared. */
  readonly plain: readonly string[];
  /** [start, end) character offsets of each line with its ending. */
  readonly starts: readonly number[];
  readonly text: string;
  readonly eol: '\n' | '\r\n';
}

function fileLines(text: string): FileLines {
  const raw = text.split('\n');
  if (raw[raw.length - 1] === '') raw.pop();
  const starts: number[] = [];
  let at = 0;
  for (const l of raw) {
    starts.push(at);
    at += l.length + 1;
  }
  starts.push(Math.min(at, text.length));
  const crlf = raw.filter((l) => l.endsWith('\r')).length;
  return { plain: raw.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)), starts, text, eol: crlf * 2 > raw.length ? '\r\n' : '\n' };
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1 && n < 2; i = text.indexOf(needle, i + 1)) n++;
  return n;
}

/** The chunk's lines as they will be in the file: context lines as the file has them, added lines as written. */
function replacement(chunk: UpdateChunk, f: FileLines, start: number, oldCount: number): string[] {
  const out: string[] = [];
  let j = 0;
  for (const l of chunk.lines) {
    if (l.op === '+') out.push(l.text);
    else {
      if (l.op === ' ' && j < oldCount) out.push(f.plain[start + j] as string);
      j++;
    }
  }
  return out;
}

function placeChunks(path: string, text: string, chunks: readonly UpdateChunk[]): { edits: FsPatchEdit[]; placed: PlacedChunk[] } {
  const f = fileLines(text);
  const edits: FsPatchEdit[] = [];
  const placed: PlacedChunk[] = [];
  let cursor = 0;
  for (const chunk of chunks) {
    if (chunk.context !== null) {
      const c = seekLines(f.plain, [chunk.context], cursor, false);
      if (c === null) throw new Refused('no_match', contextText(path, chunk.context));
      if (c.at.length > 1) throw new Refused('ambiguous_match', ambiguityText(contextText(path, chunk.context), c.at));
      cursor = (c.at[0] as number) + 1;
    }
    if (chunk.oldLines.length === 0) {
      // A chunk of added lines only goes at the end of the file, as in the original.
      const n = f.plain.length;
      const added = chunk.newLines.join(f.eol);
      edits.push(n === 0 ? { insert_line: 0, new: added } : { insert_line: n, new: added, expect: f.plain[n - 1] as string });
      placed.push({ start_line: n, end_line: n, level: 'append' });
      continue;
    }
    let pattern = chunk.oldLines;
    let found = seekLines(f.plain, pattern, cursor, chunk.endOfFile);
    if (found === null && pattern[pattern.length - 1] === '') {
      // The original retries without a final empty line (a patch ending with a blank context line).
      pattern = pattern.slice(0, -1);
      found = seekLines(f.plain, pattern, cursor, chunk.endOfFile);
    }
    if (found === null) throw new Refused('no_match', expectedLinesText(path, chunk));
    // An @@ line is the patch's own choice: the first place after it, as the format defines. Without
    // one, several places are a choice the patch did not make.
    const start = found.at[0] as number;
    const k = pattern.length;
    const old = f.text.slice(f.starts[start], f.starts[start + k]);
    if (found.at.length > 1 && chunk.context === null) throw new Refused('ambiguous_match', ambiguityText(expectedLinesText(path, chunk), found.at));
    const endsWithEol = old.endsWith('\n');
    const lines = replacement(chunk, f, start, k);
    const neu = lines.length === 0 ? '' : lines.join(f.eol) + (endsWithEol ? f.eol : '');
    const unique = occurrences(f.text, old) === 1;
    edits.push(unique ? { old, new: neu } : { lines: `${start + 1}:${start + k}`, new: neu, expect: old });
    placed.push({ start_line: start + 1, end_line: start + k, level: found.level });
    cursor = start + k;
  }
  return { edits, placed };
}

function exactChunks(path: string, chunks: readonly UpdateChunk[]): FsPatchEdit[] {
  return chunks.map((chunk) => {
    if (chunk.oldLines.length === 0) throw new Refused('unsupported', `Failed to read file to update ${path}: the file's text is needed to place lines added without context`);
    return { old: `${chunk.oldLines.join('\n')}\n`, new: chunk.newLines.length ? `${chunk.newLines.join('\n')}\n` : '' };
  });
}

function entryOf(h: PatchHunk, fileText: FileText | undefined): { entry: FsPatchEntry; placed: (PlacedChunk | null)[] } {
  switch (h.kind) {
    case 'add':
      return { entry: { path: h.path, create: h.contents }, placed: [] };
    case 'delete':
      return { entry: { path: h.path, delete: true }, placed: [] };
    case 'update': {
      const text = fileText?.(h.path);
      if (text === null) throw new Refused('not_found', `Failed to read file to update ${h.path}: ${ENOENT}`);
      const { edits, placed } = text === undefined ? { edits: exactChunks(h.path, h.chunks), placed: h.chunks.map(() => null) } : placeChunks(h.path, text, h.chunks);
      return { entry: { path: h.path, edits, ...(h.moveTo !== null ? { move_to: h.moveTo } : {}) }, placed };
    }
  }
}

/** The one fs.patch call a parsed patch becomes, or the original's refusal text and Toolgate's code. */
export function toFsPatchArgs(patch: ParsedPatch, fileText?: FileText): Mapped {
  if (patch.hunks.length === 0) return { ok: false, code: 'invalid_arguments', text: NO_FILES_MODIFIED };
  try {
    const mapped = patch.hunks.map((h) => entryOf(h, fileText));
    return { ok: true, arguments: { files: mapped.map((m) => m.entry) }, placed: mapped.map((m) => m.placed) };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, code: e.code, text: e.text };
    throw e;
  }
}
