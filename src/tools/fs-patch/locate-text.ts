// Edits found by their `old` text, in the original file. `match: "exact"` compares bytes (an
// LF-written edit also matches a CRLF file); `match: "whitespace"` compares whole lines with
// their indentation and trailing spaces ignored, reports the file's own text it matched, and
// re-indents `new` by the same shift when the match was shifted uniformly. Both refuse a miss
// (no_match with the closest candidates) and more than one place (ambiguous_match).
import { ToolgateError } from '../../protocol/index.js';
import type { AppliedEdit, Span, TextEdit } from './edits.js';
import { lineOf, linesAt, splitGiven, type LineIndex } from './line-index.js';
import { closestCandidates, toLines } from './text.js';

export interface LocatedText {
  readonly spans: Span[];
  readonly applied: AppliedEdit;
}

/** Offsets of every occurrence, overlapping ones included ("x\nx\n" in three "x" lines is at 1 and 2). */
function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) at.push(i);
  return at;
}

function refuseMiss(path: string, index: number, ix: LineIndex, old: string): never {
  throw new ToolgateError('no_match', `edit ${index}: the old text was not found in ${path}`, {
    path,
    edit: index,
    candidates: closestCandidates(toLines(ix.text).lines, toLines(old).lines),
  });
}

function refuseMany(path: string, index: number, lines: number[], overlaps: boolean, how: string): never {
  throw new ToolgateError(
    'ambiguous_match',
    `edit ${index}: the old text occurs ${lines.length} times${overlaps ? ', overlapping,' : ''}${how} in ${path} (lines ${lines.slice(0, 20).join(', ')}); add context${overlaps ? '' : ' or set replace_all'}`,
    { path, edit: index, lines, overlapping: overlaps },
  );
}

const toCrlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');

function exact(path: string, ix: LineIndex, index: number, e: TextEdit): LocatedText {
  let old = e.old;
  let neu = e.new;
  let at = occurrences(ix.text, old);
  // An edit written with LF endings against a CRLF file means the same lines.
  if (at.length === 0 && ix.eol === '\r\n' && old.includes('\n')) {
    const hits = occurrences(ix.text, toCrlf(old));
    if (hits.length > 0) {
      old = toCrlf(old);
      neu = toCrlf(neu);
      at = hits;
    }
  }
  if (at.length === 0) refuseMiss(path, index, ix, e.old);
  const overlaps = at.some((o, i) => i > 0 && o < (at[i - 1] as number) + old.length);
  if (at.length > 1 && (e.replace_all !== true || overlaps)) refuseMany(path, index, at.map((o) => lineOf(ix, o)), overlaps, '');
  const first = at[0] as number;
  return {
    spans: at.map((o) => ({ edit: index, start: o, end: o + old.length, replacement: neu })),
    applied: { edit: index, match: 'exact', start_line: lineOf(ix, first), end_line: lineOf(ix, first + old.length - 1), occurrences: at.length },
  };
}

const leadOf = (l: string): string => /^[ \t]*/.exec(l)?.[0] ?? '';

/**
 * The indentation shift from `old` to the matched lines, when it is the same on every non-blank
 * line (old's indent O + rest became F + rest); null when it is not uniform.
 */
function uniformShift(old: readonly string[], found: readonly string[]): { from: string; to: string } | null {
  const j = old.findIndex((l) => l.trim() !== '');
  if (j < 0) return null;
  const from = leadOf(old[j] as string);
  const to = leadOf(found[j] as string);
  for (let i = 0; i < old.length; i++) {
    const o = old[i] as string;
    if (o.trim() === '') continue;
    const lo = leadOf(o);
    if (!lo.startsWith(from) || leadOf(found[i] as string) !== to + lo.slice(from.length)) return null;
  }
  return { from, to };
}

function whitespace(path: string, ix: LineIndex, index: number, e: TextEdit): LocatedText {
  const want = splitGiven(e.old).map((l) => l.replace(/\r$/, ''));
  const key = want.map((l) => l.trim());
  const file = linesAt(ix, 1, ix.count);
  const trimmed = file.map((l) => l.trim());
  const k = want.length;
  const at: number[] = [];
  for (let i = 0; i + k <= file.length; i++) {
    let ok = true;
    for (let j = 0; ok && j < k; j++) ok = trimmed[i + j] === key[j];
    if (ok) at.push(i);
  }
  if (k === 0 || at.length === 0) refuseMiss(path, index, ix, e.old);
  const overlaps = at.some((o, i) => i > 0 && o < (at[i - 1] as number) + k);
  if (at.length > 1 && (e.replace_all !== true || overlaps)) refuseMany(path, index, at.map((i) => i + 1), overlaps, ' (ignoring whitespace)');
  // Whole lines: with the last line's newline when `old` ended with one, else up to it.
  const withEol = /\n$/.test(e.old);
  const first = at[0] as number;
  const found = file.slice(first, first + k);
  const shift = uniformShift(want, found);
  let lines = splitGiven(e.new);
  if (shift && shift.from !== shift.to) lines = lines.map((l) => (l.trim() !== '' && l.startsWith(shift.from) ? shift.to + l.slice(shift.from.length) : l));
  const body = lines.join(ix.eol);
  const spans = at.map((i) => {
    const start = ix.starts[i] as number;
    const lineEnd = ix.starts[i + k] as number;
    const end = withEol ? lineEnd : ix.text.slice(start, lineEnd).replace(/\r?\n$/, '').length + start;
    const eolAfter = withEol && ix.text.slice(start, end).endsWith('\n');
    return { edit: index, start, end, replacement: body + (eolAfter && lines.length > 0 ? ix.eol : '') };
  });
  const s0 = spans[0] as Span;
  return {
    spans,
    applied: {
      edit: index,
      match: 'whitespace',
      start_line: first + 1,
      end_line: first + k,
      occurrences: at.length,
      matched: ix.text.slice(s0.start, s0.end).slice(0, 4000),
      reindented: shift !== null && shift.from !== shift.to,
    },
  };
}

export function locateText(path: string, ix: LineIndex, index: number, e: TextEdit): LocatedText {
  if (e.old === e.new) throw new ToolgateError('no_change', `edit ${index}: the old and new text are the same; nothing to change in ${path}`, { path, edit: index });
  return e.match === 'whitespace' ? whitespace(path, ix, index, e) : exact(path, ix, index, e);
}
