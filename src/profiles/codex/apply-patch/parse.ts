// Codex's apply_patch text (`*** Begin Patch` … `*** End Patch`, shared/toolsurf/codex/apply_patch.lark)
// parsed as leniently as the original: whitespace around the markers, a heredoc wrapper, CRLF
// lines, a first update chunk without `@@`, blank lines between chunks. Its errors are the
// original's exact strings (shared/toolsurf/codex/apply_patch.json, x-toolsurf.errors), with the
// original's line numbers (the first line after `*** Begin Patch` is line 2). Written from the
// facts' grammar and error list rather than with a grammar library: the leniency (a first chunk
// without `@@`, a heredoc around the patch) and the exact error strings are what the model
// relies on, and a generated Lark parser would give neither.

export const BEGIN_PATCH = '*** Begin Patch';
export const END_PATCH = '*** End Patch';
const ADD_FILE = '*** Add File: ';
const DELETE_FILE = '*** Delete File: ';
const UPDATE_FILE = '*** Update File: ';
const MOVE_TO = '*** Move to: ';
const END_OF_FILE = '*** End of File';
const HEREDOC_OPENERS: readonly string[] = ['<<EOF', "<<'EOF'", '<<"EOF"'];

/** One line of an update chunk: context (` `), removed (`-`) or added (`+`). */
export interface ChunkLine {
  readonly op: ' ' | '-' | '+';
  readonly text: string;
}

export interface UpdateChunk {
  /** The `@@ header` line that narrows where the chunk is (a class or function line), if any. */
  readonly context: string | null;
  readonly lines: readonly ChunkLine[];
  /** Context and removed lines: what must be in the file. */
  readonly oldLines: readonly string[];
  /** Context and added lines: what replaces them. */
  readonly newLines: readonly string[];
  /** `*** End of File`: the old lines must end the file. */
  readonly endOfFile: boolean;
}

export type PatchHunk =
  | { readonly kind: 'add'; readonly path: string; readonly contents: string }
  | { readonly kind: 'delete'; readonly path: string }
  | { readonly kind: 'update'; readonly path: string; readonly moveTo: string | null; readonly chunks: readonly UpdateChunk[] };

export interface ParsedPatch {
  readonly hunks: readonly PatchHunk[];
}

export type ParseResult = { readonly ok: true; readonly patch: ParsedPatch } | { readonly ok: false; readonly message: string };

class PatchSyntaxError extends Error {}

const invalidPatch = (message: string): PatchSyntaxError => new PatchSyntaxError(`invalid patch: ${message}`);
const invalidHunk = (line: number, message: string): PatchSyntaxError => new PatchSyntaxError(`invalid hunk at line ${line}, ${message}`);

/** The patch body between the markers; throws the original's boundary errors. */
function body(lines: readonly string[]): readonly string[] {
  const first = lines[0]?.trim();
  const last = lines[lines.length - 1]?.trim();
  if (first === BEGIN_PATCH && last === END_PATCH && lines.length >= 2) return lines.slice(1, -1);
  if (first !== undefined && first !== BEGIN_PATCH) throw invalidPatch("The first line of the patch must be '*** Begin Patch'");
  throw invalidPatch("The last line of the patch must be '*** End Patch'");
}

/** A heredoc (`<<'EOF'` … `EOF`) around the patch, as a model calling it through a shell writes it. */
function lenientBody(lines: readonly string[]): readonly string[] {
  try {
    return body(lines);
  } catch (e) {
    const first = lines[0];
    const last = lines[lines.length - 1];
    if (first !== undefined && last !== undefined && HEREDOC_OPENERS.includes(first) && last.endsWith('EOF') && lines.length >= 4) return body(lines.slice(1, -1));
    throw e;
  }
}

function parseChunk(lines: readonly string[], lineNo: number, first: boolean): { chunk: UpdateChunk; used: number } {
  const head = lines[0] as string;
  let context: string | null = null;
  let start = 1;
  if (head === '@@') context = null;
  else if (head.startsWith('@@ ')) context = head.slice(3);
  else if (first) start = 0;
  else throw invalidHunk(lineNo, `Expected update hunk to start with a @@ context marker, got: '${head}'`);
  if (start >= lines.length) throw invalidHunk(lineNo + 1, 'Update hunk does not contain any lines');
  const out: ChunkLine[] = [];
  let endOfFile = false;
  let used = 0;
  for (const line of lines.slice(start)) {
    if (line === END_OF_FILE) {
      if (used === 0) throw invalidHunk(lineNo + 1, 'Update hunk does not contain any lines');
      endOfFile = true;
      used++;
      break;
    }
    const op = line === '' ? ' ' : line[0];
    if (op !== ' ' && op !== '-' && op !== '+') {
      if (used === 0) {
        throw invalidHunk(lineNo + 1, `Unexpected line found in update hunk: '${line}'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)`);
      }
      break; // the next chunk's header, or the next file's
    }
    out.push({ op, text: line.slice(1) });
    used++;
  }
  return {
    chunk: {
      context,
      lines: out,
      oldLines: out.filter((l) => l.op !== '+').map((l) => l.text),
      newLines: out.filter((l) => l.op !== '-').map((l) => l.text),
      endOfFile,
    },
    used: used + start,
  };
}

function parseHunk(lines: readonly string[], lineNo: number): { hunk: PatchHunk; used: number } {
  const first = (lines[0] as string).trim();
  if (first.startsWith(ADD_FILE)) {
    let used = 1;
    let contents = '';
    for (const l of lines.slice(1)) {
      if (!l.startsWith('+')) break;
      contents += `${l.slice(1)}\n`;
      used++;
    }
    return { hunk: { kind: 'add', path: first.slice(ADD_FILE.length), contents }, used };
  }
  if (first.startsWith(DELETE_FILE)) return { hunk: { kind: 'delete', path: first.slice(DELETE_FILE.length) }, used: 1 };
  if (first.startsWith(UPDATE_FILE)) {
    const path = first.slice(UPDATE_FILE.length);
    let used = 1;
    let moveTo: string | null = null;
    if (lines[1]?.startsWith(MOVE_TO)) {
      moveTo = lines[1].slice(MOVE_TO.length);
      used++;
    }
    const chunks: UpdateChunk[] = [];
    while (used < lines.length) {
      const l = lines[used] as string;
      if (l.trim() === '') {
        used++; // blank lines between chunks
        continue;
      }
      if (l.startsWith('*')) break;
      const c = parseChunk(lines.slice(used), lineNo + used, chunks.length === 0);
      chunks.push(c.chunk);
      used += c.used;
    }
    if (chunks.length === 0) throw invalidHunk(lineNo, `Update file hunk for path '${path}' is empty`);
    return { hunk: { kind: 'update', path, moveTo, chunks }, used };
  }
  throw invalidHunk(lineNo, `'${first}' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'`);
}

/** Parses an apply_patch text; a failure is the original's exact error string. */
export function parseApplyPatch(text: string): ParseResult {
  const trimmed = text.trim();
  // Like Rust's str::lines: split at \n, a \r before it is part of the line ending.
  const lines = trimmed === '' ? [] : trimmed.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  try {
    const inner = lenientBody(lines);
    const hunks: PatchHunk[] = [];
    let at = 0;
    while (at < inner.length) {
      const h = parseHunk(inner.slice(at), at + 2);
      hunks.push(h.hunk);
      at += h.used;
    }
    return { ok: true, patch: { hunks } };
  } catch (e) {
    if (e instanceof PatchSyntaxError) return { ok: false, message: e.message };
    throw e;
  }
}
