// Structured edits of one file. Every edit is placed in the ORIGINAL text first (by its text,
// its line range or its insert line), then all are applied at once, so the result does not
// depend on their order: two edits that touch the same original text are overlapping_edits,
// and nothing is written on any refusal.
import { ToolgateError } from '../../protocol/index.js';
import type { AppliedEdit, Edit, Span } from './edits.js';
import { indexLines, lineOf, type LineIndex } from './line-index.js';
import { locateInsert, locateRange } from './locate-lines.js';
import { locateText } from './locate-text.js';

export type { Edit } from './edits.js';

export interface EditOptions {
  /** The file uses CRLF: inserted lines get CRLF, LF-written old text matches. */
  readonly crlf: boolean;
  /** expected_sha256 was given and matched: line edits need no `expect`. */
  readonly boundBySha: boolean;
}

/** The original lines a span covers, for an overlap report (an insert is the line it follows). */
function linesOfSpan(ix: LineIndex, s: Span): [number, number] {
  if (s.start === s.end) return [s.start === 0 ? 0 : lineOf(ix, s.start - 1), s.start === 0 ? 0 : lineOf(ix, s.start - 1)];
  return [lineOf(ix, s.start), lineOf(ix, s.end - 1)];
}

function refuseOverlaps(path: string, ix: LineIndex, spans: Span[]): void {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - a.start - (b.end - b.start) || a.edit - b.edit);
  for (let i = 1; i < sorted.length; i++) {
    const p = sorted[i - 1] as Span;
    const q = sorted[i] as Span;
    const clash = q.start < p.end || (q.start === p.start && p.start === p.end && q.start === q.end);
    if (!clash) continue;
    const [x, y] = p.edit <= q.edit ? [p, q] : [q, p];
    const lx = linesOfSpan(ix, x);
    const ly = linesOfSpan(ix, y);
    throw new ToolgateError(
      'overlapping_edits',
      `edits ${x.edit} and ${y.edit} of ${path} touch the same text (lines ${lx[0]}-${lx[1]} and ${ly[0]}-${ly[1]} of the file as read); every edit refers to the original text, so merge them into one edit`,
      { path, edits: [x.edit, y.edit], lines: [lx, ly] },
    );
  }
}

export function applyEdits(path: string, original: string, edits: readonly Edit[], opts: EditOptions): { text: string; applied: AppliedEdit[] } {
  const ix = indexLines(original, opts.crlf);
  const spans: Span[] = [];
  const applied: AppliedEdit[] = [];
  let trimFinalEol = false;
  edits.forEach((e, i) => {
    const index = i + 1;
    if ('old' in e) {
      const t = locateText(path, ix, index, e);
      spans.push(...t.spans);
      applied.push(t.applied);
      return;
    }
    const c = { path, ix, boundBySha: opts.boundBySha };
    const l = 'lines' in e ? locateRange(c, index, e) : locateInsert(c, index, e);
    spans.push(l.span);
    applied.push(l.applied);
    trimFinalEol ||= l.trimFinalEol;
  });
  refuseOverlaps(path, ix, spans);
  spans.sort((a, b) => a.start - b.start || a.end - b.end);
  const parts: string[] = [];
  let prev = 0;
  for (const s of spans) {
    parts.push(original.slice(prev, s.start), s.replacement);
    prev = s.end;
  }
  parts.push(original.slice(prev));
  let text = parts.join('');
  if (trimFinalEol && text.endsWith('\n')) text = text.slice(0, text.endsWith('\r\n') ? -2 : -1);
  return { text, applied };
}
