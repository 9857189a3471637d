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

/**
 * A wanted line's bigrams for scoring many file lines against it: the same Dice coefficient as
 * lineSimilarity (which stays the definition, and the oracle of test/tools/fs-patch/candidates),
 * without a Map of bigram strings made for every line compared. A bigram is its two UTF-16 code
 * units in one int32, found in an open-addressing table; the counts of a file line's bigrams are
 * kept per table slot and reset by a generation stamp, not by clearing.
 */
class WantedLine {
  readonly trimmed: string;
  /** Bigrams of the trimmed line (its length - 1), 0 when it is shorter than 2. */
  readonly bigrams: number;
  readonly #keys: Int32Array;
  /** Per slot: how often the bigram occurs in the wanted line; 0 for an empty slot. */
  readonly #counts: Int32Array;
  readonly #used: Int32Array;
  readonly #stamp: Int32Array;
  readonly #mask: number;
  #gen = 0;

  constructor(line: string) {
    this.trimmed = line.trim();
    const y = this.trimmed;
    this.bigrams = y.length < 2 ? 0 : y.length - 1;
    let size = 8;
    while (size < 2 * this.bigrams) size *= 2;
    this.#mask = size - 1;
    this.#keys = new Int32Array(size);
    this.#counts = new Int32Array(size);
    this.#used = new Int32Array(size);
    this.#stamp = new Int32Array(size);
    for (let i = 0; i < this.bigrams; i++) {
      const slot = this.#slot((y.charCodeAt(i) << 16) | y.charCodeAt(i + 1));
      this.#counts[slot] = (this.#counts[slot] as number) + 1;
    }
  }

  /** The slot holding `key`, or the empty slot where it would go. */
  #slot(key: number): number {
    let slot = Math.imul(key, 0x9e3779b1) >>> 0 & this.#mask;
    while (this.#counts[slot] !== 0 && this.#keys[slot] !== key) slot = (slot + 1) & this.#mask;
    this.#keys[slot] = key; // an empty slot takes the key: a later count makes it the key's
    return slot;
  }

  /** lineSimilarity(line, this line), given `line` trimmed. */
  similarity(x: string): number {
    const y = this.trimmed;
    if (x === y) return 1;
    if (x.length < 2 || this.bigrams === 0) return 0;
    const gen = ++this.#gen;
    const keys = this.#keys;
    const counts = this.#counts;
    const used = this.#used;
    const stamp = this.#stamp;
    const mask = this.#mask;
    let common = 0;
    for (let i = 0; i < x.length - 1; i++) {
      const key = (x.charCodeAt(i) << 16) | x.charCodeAt(i + 1);
      let slot = Math.imul(key, 0x9e3779b1) >>> 0 & mask;
      while (counts[slot] !== 0 && keys[slot] !== key) slot = (slot + 1) & mask;
      const n = counts[slot] as number;
      if (n === 0) continue;
      if (stamp[slot] !== gen) {
        stamp[slot] = gen;
        used[slot] = 0;
      }
      if ((used[slot] as number) < n) {
        used[slot] = (used[slot] as number) + 1;
        common++;
      }
    }
    return (2 * common) / (x.length - 1 + this.bigrams);
  }

  /** The highest similarity a trimmed line of `chars` characters can have to this one (Dice's bound). */
  bound(chars: number): number {
    if (chars < 2 || this.bigrams === 0) return 1; // equality alone decides: not pruned
    return (2 * Math.min(chars - 1, this.bigrams)) / (chars - 1 + this.bigrams);
  }
}

/** The best `max` of scored windows, best first; ties go to the earlier window (as a stable sort by score would). */
class Best {
  readonly items: { i: number; s: number }[] = [];
  constructor(readonly max: number) {}
  /** The score a window must pass to enter (windows come in order, so an equal score does not). */
  get floor(): number {
    return this.items.length < this.max ? -Infinity : (this.items[this.items.length - 1] as { s: number }).s;
  }
  add(i: number, s: number): void {
    if (s <= this.floor) return;
    let at = this.items.length;
    while (at > 0 && (this.items[at - 1] as { s: number }).s < s) at--;
    this.items.splice(at, 0, { i, s });
    if (this.items.length > this.max) this.items.pop();
  }
}

/**
 * Characters compared for candidates before the search narrows to one wanted line: each
 * character of a file line is looked up once per wanted line it is compared with (~5 ns each: about 20 ms
 * here; before this bound (it counted line pairs, up to 400,000, at a bigram Map each) a 200-line
 * hunk missing from a 2,000-line file held the event loop for 2 s.
 */
export const CANDIDATE_WORK_CHARS = 4_000_000;

/**
 * The windows of the file most like `wanted` (same number of lines), best first. When comparing
 * every window would pass CANDIDATE_WORK_CHARS, the search narrows to the first non-blank wanted
 * line, which costs one lookup per character of the file, less where a line's length alone
 * rules it out (a minified line against a short wanted one).
 */
export function closestCandidates(file: readonly string[], wanted: readonly string[], max = 3, work = CANDIDATE_WORK_CHARS): Candidate[] {
  let want = wanted;
  let lead = 0;
  const k0 = Math.max(1, want.length);
  if (k0 > 1) {
    let chars = 0;
    for (const line of file) chars += line.length + 1;
    if (chars * k0 > work) {
      lead = Math.max(0, want.findIndex((l) => l.trim() !== ''));
      want = [want[lead] ?? ''];
    }
  }
  const k = Math.max(1, want.length);
  const tables = (want.length === 0 ? [''] : want).map((l) => new WantedLine(l));
  const best = new Best(max);
  if (k === 1) {
    const only = tables[0] as WantedLine;
    for (let i = 0; i < file.length; i++) {
      const x = (file[i] as string).trim();
      if (only.bound(x.length) <= best.floor) continue;
      best.add(i, only.similarity(x));
    }
  } else {
    // Each file line is compared with the wanted line it faces in every window that holds it.
    const windows = file.length - k + 1;
    const sums = new Float64Array(Math.max(0, windows));
    for (let l = 0; l < file.length; l++) {
      const x = (file[l] as string).trim();
      for (let j = Math.max(0, l - windows + 1); j < k && j <= l; j++) sums[l - j] = (sums[l - j] as number) + (tables[j] as WantedLine).similarity(x);
    }
    for (let i = 0; i < windows; i++) best.add(i, (sums[i] as number) / k);
  }
  const span = wanted.length || 1;
  return best.items.filter((c) => c.s > 0).map(({ i, s }) => {
    const start = Math.max(0, i - lead);
    const end = Math.min(file.length, start + span);
    return { start_line: start + 1, end_line: end, similarity: Math.round(s * 100) / 100, text: file.slice(start, end).join('\n').slice(0, 2000) };
  });
}
