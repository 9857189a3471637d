// Line positions of a text, so that edits addressed by line and edits found by text can both
// be expressed as offsets into the same original string.
export interface LineIndex {
  readonly text: string;
  /** starts[i] is the offset of line i+1; starts[count] is text.length. */
  readonly starts: readonly number[];
  readonly count: number;
  /** The newline the file mostly uses, for inserted lines. */
  readonly eol: '\n' | '\r\n';
  readonly endsWithNewline: boolean;
}

export function indexLines(text: string, crlf: boolean): LineIndex {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const endsWithNewline = text === '' || text.endsWith('\n');
  if (endsWithNewline) starts.pop();
  const count = starts.length;
  starts.push(text.length);
  return { text, starts, count, eol: crlf ? '\r\n' : '\n', endsWithNewline };
}

/** Line n (1-based) without its newline or carriage return. */
export function lineAt(ix: LineIndex, n: number): string {
  return ix.text.slice(ix.starts[n - 1] as number, ix.starts[n] as number).replace(/\r?\n$/, '').replace(/\r$/, '');
}

/** Lines a..b without their newlines. */
export function linesAt(ix: LineIndex, a: number, b: number): string[] {
  const out: string[] = [];
  for (let n = a; n <= b; n++) out.push(lineAt(ix, n));
  return out;
}

/** 1-based line of an offset. */
export function lineOf(ix: LineIndex, offset: number): number {
  let lo = 0;
  let hi = ix.count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((ix.starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Text given by an agent as lines: CRLF or LF, an optional final newline. */
export function splitGiven(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `new` text as a block of whole lines in the file's newline, ending with one. */
export function asBlock(ix: LineIndex, text: string): string {
  const lines = splitGiven(text);
  return lines.length === 0 ? '' : lines.join(ix.eol) + ix.eol;
}

/** Lines numbered as `cat -n` prints them, bounded, for a message the model reads. */
export function numbered(lines: readonly string[], first: number, max = 20): string {
  const shown = lines.slice(0, max).map((l, i) => `${String(first + i).padStart(6)}\t${l.length > 300 ? `${l.slice(0, 300)}…` : l}`);
  if (lines.length > max) shown.push(`       … ${lines.length - max} more lines`);
  return shown.join('\n');
}
