// Structured edits: each `old` text must occur exactly once in the file as it stands after the
// previous edits (or any number of times with replace_all). Nothing is written on a miss.
import { ToolgateError } from '../../protocol/index.js';
import { closestCandidates, toLines } from './text.js';

export interface Edit {
  readonly old: string;
  readonly new: string;
  readonly replace_all?: boolean | undefined;
}

/**
 * Offsets of every occurrence, overlapping ones included: in three `x = 1` lines the text
 * "x = 1\nx = 1\n" occurs twice (at lines 1 and 2), which is ambiguous, not one match.
 */
function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/** True when two of the (ascending) occurrences share characters: replace_all would depend on scan order. */
function overlapping(at: readonly number[], length: number): boolean {
  return at.some((o, i) => i > 0 && o < (at[i - 1] as number) + length);
}

/** 1-based line of each (ascending) offset, in one pass. */
function linesOf(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let pos = 0;
  for (const o of offsets) {
    for (let i = text.indexOf('\n', pos); i !== -1 && i < o; i = text.indexOf('\n', i + 1)) {
      line++;
      pos = i + 1;
    }
    out.push(line);
  }
  return out;
}

const toCrlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');

export function applyEdits(path: string, original: string, edits: readonly Edit[], crlf: boolean): { text: string; replacements: number } {
  let text = original;
  let replacements = 0;
  edits.forEach((edit, index) => {
    let { old, new: neu } = edit;
    if (old === neu) {
      throw new ToolgateError('no_change', `edit ${index + 1}: the old and new text are the same; nothing to change in ${path}`, { path, edit: index + 1 });
    }
    let at = occurrences(text, old);
    // An edit written with LF endings against a CRLF file means the same lines.
    if (at.length === 0 && crlf && old.includes('\n')) {
      const o = toCrlf(old);
      const hits = occurrences(text, o);
      if (hits.length > 0) {
        old = o;
        neu = toCrlf(neu);
        at = hits;
      }
    }
    if (at.length === 0) {
      throw new ToolgateError('no_match', `edit ${index + 1}: the old text was not found in ${path}`, {
        path,
        edit: index + 1,
        candidates: closestCandidates(toLines(text).lines, toLines(old).lines),
      });
    }
    const overlaps = overlapping(at, old.length);
    if (at.length > 1 && (edit.replace_all !== true || overlaps)) {
      const how = overlaps ? ', overlapping,' : '';
      throw new ToolgateError('ambiguous_match', `edit ${index + 1}: the old text occurs ${at.length} times${how} in ${path}; add context${overlaps ? '' : ' or set replace_all'}`, {
        path,
        edit: index + 1,
        lines: linesOf(text, at),
        overlapping: overlaps,
      });
    }
    const parts: string[] = [];
    let prev = 0;
    for (const o of at) {
      parts.push(text.slice(prev, o), neu);
      prev = o + old.length;
    }
    parts.push(text.slice(prev));
    text = parts.join('');
    replacements += at.length;
  });
  return { text, replacements };
}
