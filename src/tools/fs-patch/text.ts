// A file as lines, the way a diff sees it: each line without its '\n' (a '\r' stays part of
// the line), plus whether the last line ends with a newline.
import { ToolgateError } from '../../protocol/index.js';

export interface Lines {
  readonly lines: string[];
  readonly eofNewline: boolean;
}

export function toLines(text: string): Lines {
  if (text === '') return { lines: [], eofNewline: true };
  const lines = text.split('\n');
  const eofNewline = lines[lines.length - 1] === '';
  if (eofNewline) lines.pop();
  return { lines, eofNewline };
}

export function fromLines(l: Lines): string {
  if (l.lines.length === 0) return '';
  return l.lines.join('\n') + (l.eofNewline ? '\n' : '');
}

/** Decodes a file for text edits; refuses bytes that would not survive a round trip. */
export function decodeText(data: Uint8Array, path: string): string {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.length);
  const text = buf.toString('utf8');
  if (buf.includes(0) || !Buffer.from(text, 'utf8').equals(buf)) {
    throw new ToolgateError('unsupported', `${path} is not UTF-8 text; use fs.write with base64`, { path, reason: 'binary' });
  }
  return text;
}

function bigrams(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < s.length - 1; i++) {
    const b = s.slice(i, i + 2);
    m.set(b, (m.get(b) ?? 0) + 1);
  }
  return m;
}

/** Dice coefficient over character bigrams of the trimmed lines: 1 for equal, 0 for unrelated. */
export function lineSimilarity(a: string, b: string): number {
  const x = a.trim();
  const y = b.trim();
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const bx = bigrams(x);
  const by = bigrams(y);
  let common = 0;
  for (const [k, v] of bx) common += Math.min(v, by.get(k) ?? 0);
  return (2 * common) / (x.length - 1 + (y.length - 1));
}

export interface Candidate {
  readonly start_line: number;
  readonly end_line: number;
  readonly similarity: number;
  readonly text: string;
}

const CANDIDATE_WORK = 400_000;

/**
 * The windows of the file most like `wanted` (same number of lines), best first. On a large
 * file the search narrows to the first non-blank wanted line, so it stays bounded.
 */
export function closestCandidates(file: readonly string[], wanted: readonly string[], max = 3): Candidate[] {
  let want = wanted;
  let lead = 0;
  if (file.length * want.length > CANDIDATE_WORK) {
    lead = Math.max(0, want.findIndex((l) => l.trim() !== ''));
    want = [want[lead] ?? ''];
  }
  const k = Math.max(1, want.length);
  const scored: { i: number; s: number }[] = [];
  for (let i = 0; i + k <= file.length; i++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += lineSimilarity(file[i + j] as string, want[j] ?? '');
    scored.push({ i, s: s / k });
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  const span = wanted.length || 1;
  return scored.slice(0, max).filter((c) => c.s > 0).map(({ i, s }) => {
    const start = Math.max(0, i - lead);
    const end = Math.min(file.length, start + span);
    return { start_line: start + 1, end_line: end, similarity: Math.round(s * 100) / 100, text: file.slice(start, end).join('\n').slice(0, 2000) };
  });
}
