// Applies parsed hunks to a file's lines. A hunk's old side must match exactly; when it is not
// at the stated line (earlier edits moved it), the nearest exact match after the previous hunk
// is used, as `git apply` does. The hunks are returned with the positions actually used.
import { ToolgateError } from '../../protocol/index.js';
import type { Hunk } from './parse.js';
import { closestCandidates, type Lines } from './text.js';

/**
 * Appends `items[from..to)` one by one: a spread (`out.push(...lines)`) passes each line as an
 * argument, and a file or hunk of a few hundred thousand lines overflowed the call stack
 * (`execution_failed: Maximum call stack size exceeded` for a one-line change to a 300,000-line file).
 */
function append(out: string[], items: readonly string[], from = 0, to = items.length): void {
  for (let i = from; i < to; i++) out.push(items[i] as string);
}

function matchesAt(file: readonly string[], p: number, old: readonly string[]): boolean {
  for (let j = 0; j < old.length; j++) if (file[p + j] !== old[j]) return false;
  return true;
}

export function applyHunks(path: string, before: Lines, hunks: readonly Hunk[]): { after: Lines; hunks: Hunk[] } {
  const file = before.lines;
  const n = file.length;
  const out: string[] = [];
  const applied: Hunk[] = [];
  let pos = 0;
  let drift = 0;
  let eofNewline = before.eofNewline;
  hunks.forEach((h, index) => {
    const old = h.lines.filter((l) => l.op !== '+').map((l) => l.text);
    const neu = h.lines.filter((l) => l.op !== '-').map((l) => l.text);
    const stated = (h.oldLines === 0 ? h.oldStart : h.oldStart - 1) + drift;
    const last = n - old.length;
    const fits = (p: number): boolean => {
      if (!matchesAt(file, p, old)) return false;
      const atEnd = p + old.length === n && old.length > 0;
      return h.oldNoNewline ? atEnd && !before.eofNewline : !(atEnd && !before.eofNewline);
    };
    let found = -1;
    const from = Math.min(Math.max(stated, pos), Math.max(last, pos));
    for (let d = 0; found < 0 && (from - d >= pos || from + d <= last); d++) {
      if (from - d >= pos && from - d <= last && fits(from - d)) found = from - d;
      else if (d > 0 && from + d <= last && from + d >= pos && fits(from + d)) found = from + d;
    }
    if (found < 0) {
      throw new ToolgateError('no_match', `hunk ${index + 1} of ${path} does not match the file (stated at line ${h.oldStart})`, {
        path,
        hunk: index + 1,
        stated_line: h.oldStart,
        candidates: closestCandidates(file, old),
      });
    }
    append(out, file, pos, found);
    const newStart = neu.length === 0 ? out.length : out.length + 1;
    append(out, neu);
    applied.push({ ...h, oldStart: old.length === 0 ? found : found + 1, newStart });
    pos = found + old.length;
    drift = found - (h.oldLines === 0 ? h.oldStart : h.oldStart - 1);
    if (pos === n) eofNewline = !h.newNoNewline;
  });
  append(out, file, pos);
  return { after: { lines: out, eofNewline }, hunks: applied };
}
