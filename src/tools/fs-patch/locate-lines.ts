// Line-addressed edits (`lines: "a:b"`, `insert_line: n`). A line number is only meaningful for
// the file it was read from, so each must be bound to that file: its expected_sha256 (checked
// before any edit) or `expect`, the text of the addressed lines. A stale or unbound one is
// refused with the lines that are there now, so the agent can re-aim without another read.
import { ToolgateError } from '../../protocol/index.js';
import type { AppliedEdit, InsertEdit, RangeEdit, Span } from './edits.js';
import { asBlock, linesAt, numbered, splitGiven, type LineIndex } from './line-index.js';
import { closestCandidates } from './text.js';

export interface LineEditContext {
  readonly path: string;
  readonly ix: LineIndex;
  /** The call gave expected_sha256 and the file has it. */
  readonly boundBySha: boolean;
}

export interface LocatedLines {
  readonly span: Span;
  readonly applied: AppliedEdit;
  /** Deleting the last lines of a file without a final newline: the new last line keeps none. */
  readonly trimFinalEol: boolean;
}

function parseRange(r: string): [number, number] {
  const [a, b] = r.split(':').map(Number) as [number, number | undefined];
  return [a, b ?? a];
}

/** Checks the binding of lines a..b (a > b: none addressed); throws precondition_failed. */
function checkBinding(c: LineEditContext, index: number, a: number, b: number, expect: string | undefined, how: string): void {
  const { path, ix } = c;
  const what = `${a === b ? `line ${a}` : `lines ${a}-${b}`}${how}`;
  const be = a === b ? 'is' : 'are';
  if (b > ix.count) {
    const current = linesAt(c.ix, Math.min(a, ix.count + 1), ix.count);
    throw new ToolgateError('precondition_failed', `edit ${index}: ${what} ${be} past the end of ${path}, which has ${ix.count} lines; nothing was written`, {
      path, reason: 'line_out_of_range', edit: index, start_line: a, end_line: b, line_count: ix.count, current: current.join('\n'),
      ...(expect !== undefined ? { expected: expect } : {}),
    });
  }
  const current = a <= b ? linesAt(ix, a, b) : [];
  if (expect === undefined) {
    if (c.boundBySha) return;
    throw new ToolgateError(
      'precondition_failed',
      `edit ${index}: ${what} of ${path} ${be} not bound to the file as read: give expect (the text of those lines) or the file's expected_sha256; nothing was written. The lines now:\n${numbered(current, a)}`,
      { path, reason: 'unbound_line_edit', edit: index, start_line: a, end_line: b, line_count: ix.count, current: current.join('\n') },
    );
  }
  const wanted = splitGiven(expect).map((l) => l.replace(/\r$/, ''));
  if (wanted.length === current.length && wanted.every((l, i) => l === current[i])) return;
  const all = linesAt(ix, 1, ix.count);
  const candidates = wanted.length > 0 ? closestCandidates(all, wanted) : [];
  const near = candidates[0];
  const hint = near && near.similarity === 1 ? ` The expected text is now at lines ${near.start_line}-${near.end_line}.` : '';
  throw new ToolgateError(
    'precondition_failed',
    `edit ${index}: ${what} of ${path} ${be} not the expected text (the file changed since it was read); nothing was written.${hint} The lines now:\n${numbered(current, a)}`,
    { path, reason: 'stale_lines', edit: index, start_line: a, end_line: b, line_count: ix.count, expected: expect, current: current.join('\n'), candidates },
  );
}

export function locateRange(c: LineEditContext, index: number, e: RangeEdit): LocatedLines {
  const { ix } = c;
  const [a, b] = parseRange(e.lines);
  checkBinding(c, index, a, b, e.expect, '');
  const start = ix.starts[a - 1] as number;
  const end = ix.starts[b] as number;
  let replacement = asBlock(ix, e.new);
  const atEnd = b === ix.count && !ix.endsWithNewline;
  if (atEnd && replacement !== '') replacement = replacement.slice(0, -ix.eol.length);
  return {
    span: { edit: index, start, end, replacement },
    applied: { edit: index, match: 'lines', start_line: a, end_line: b, occurrences: 1 },
    trimFinalEol: atEnd && replacement === '' && a > 1,
  };
}

export function locateInsert(c: LineEditContext, index: number, e: InsertEdit): LocatedLines {
  const { ix } = c;
  const n = e.insert_line;
  const k = e.expect === undefined ? 1 : Math.max(1, splitGiven(e.expect).length);
  // The top of a file does not move, so insert_line 0 needs no binding; an `expect` given there
  // is checked against the first lines (those the insert goes above).
  if (n === 0) {
    if (e.expect !== undefined && e.expect !== '') checkBinding(c, index, 1, Math.min(k, Math.max(ix.count, 1)), e.expect, ' (the anchor of insert_line 0)');
  } else checkBinding(c, index, Math.max(1, n - k + 1), n, e.expect, ` (the anchor of insert_line ${n})`);
  const pos = ix.starts[n] as number;
  let replacement = asBlock(ix, e.new);
  // After the last line of a file without a final newline: that line gets one, the new last line none.
  if (n === ix.count && n > 0 && !ix.endsWithNewline) replacement = ix.eol + replacement.slice(0, -ix.eol.length);
  return {
    span: { edit: index, start: pos, end: pos, replacement },
    applied: { edit: index, match: 'insert', start_line: n, end_line: n, occurrences: 1 },
    trimFinalEol: false,
  };
}
