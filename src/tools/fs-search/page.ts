// One page of results: items added in result order until a bound is reached. The cursor is
// the last item returned, or the last file fully looked at, so the next page starts exactly
// where this one stopped.
import { MAX_LINE_BYTES, type FileCount, type SearchMatch, type SearchOutput, type TruncationReason } from './schema.js';
import { alreadyReturned, type Cursor } from './order.js';
import type { FileHits, LineHit } from './engines/types.js';

/** Room kept in max_bytes for the rest of the result object. */
const ENVELOPE_BYTES = 2048;
const LEAD_BYTES = 60;

/**
 * A line cut to MAX_LINE_BYTES around [start, end) bytes, on character boundaries. `encoded`:
 * the line's UTF-8 when the caller has it (the hits of one long line share it).
 */
export function cutLine(text: string, start = 0, encoded?: Buffer): string {
  if (text.length * 3 <= MAX_LINE_BYTES) return text; // at most 3 bytes a UTF-16 unit: it fits
  const buf = encoded ?? Buffer.from(text, 'utf8');
  if (buf.length <= MAX_LINE_BYTES) return text;
  return cutBytes(buf, start);
}

/** A line's UTF-8 longer than MAX_LINE_BYTES, cut around byte `start` on character boundaries. */
export function cutBytes(buf: Buffer, start = 0): string {
  let from = Math.max(0, Math.min(start - LEAD_BYTES, buf.length - MAX_LINE_BYTES));
  while (from > 0 && ((buf[from] as number) & 0xc0) === 0x80) from--;
  let to = Math.min(buf.length, from + MAX_LINE_BYTES);
  while (to < buf.length && ((buf[to] as number) & 0xc0) === 0x80) to--;
  return buf.toString('utf8', from, to);
}

export interface ContextSource {
  /**
   * Up to `count` lines of a file from line `first` (1-based; fewer at its end), terminators
   * stripped and each cut as a result line is (cutLine), or null when the file cannot be read.
   */
  lines(path: string, first: number, count: number): string[] | null;
}

export class PageBuilder {
  readonly matches: SearchMatch[] = [];
  readonly counts: FileCount[] = [];
  readonly paths: string[] = [];
  /** Results on this page: matches for matches/count_only, files for paths_only. */
  results = 0;
  truncation: TruncationReason | null = null;
  cursor: Cursor | null;
  readonly #from: Cursor | null;
  readonly #output: SearchOutput;
  readonly #maxResults: number;
  readonly #maxBytes: number;
  readonly #contextLines: number;
  #items = 0;
  #bytes = ENVELOPE_BYTES;
  /**
   * The last long line cut, encoded: a page's hits on one line (a minified file's) are cut from
   * one encoding of it, not one each (200 encodings of a 4 MiB line were 800 MB of work).
   */
  #encoded: { readonly text: string; readonly buf: Buffer } | null = null;

  constructor(output: SearchOutput, from: Cursor | null, maxResults: number, maxBytes: number, contextLines: number) {
    this.#output = output;
    this.#from = from;
    this.cursor = from;
    this.#maxResults = maxResults;
    this.#maxBytes = maxBytes;
    this.#contextLines = contextLines;
  }

  get full(): boolean {
    return this.truncation !== null;
  }

  /** Takes one more item if it fits; otherwise marks the page truncated. */
  #fits(item: unknown): boolean {
    if (this.#items >= this.#maxResults) {
      this.truncation = 'max_results';
      return false;
    }
    const size = Buffer.byteLength(JSON.stringify(item)) + 1;
    // The first item of a page is always taken: a page must make progress.
    if (this.#items > 0 && this.#bytes + size > this.#maxBytes) {
      this.truncation = 'max_bytes';
      return false;
    }
    this.#items++;
    this.#bytes += size;
    return true;
  }

  #match(path: string, h: LineHit, context: ContextSource): SearchMatch {
    const m: SearchMatch = {
      path,
      line: h.line,
      column: h.column,
      end_column: h.end_column,
      text: this.#cut(h.text, h.column - 1),
      ...(h.end_line !== undefined ? { end_line: h.end_line } : {}),
      ...(h.kind !== undefined ? { kind: h.kind } : {}),
      ...(h.container !== undefined ? { container: h.container } : {}),
    };
    if (this.#contextLines === 0 || h.line < 1) return m;
    const first = Math.max(1, h.line - this.#contextLines);
    const before = context.lines(path, first, h.line - first) ?? [];
    const after = context.lines(path, h.line + 1, this.#contextLines) ?? [];
    return { ...m, context: { before, after } };
  }

  #cut(text: string, start: number): string {
    if (text.length * 3 <= MAX_LINE_BYTES) return text;
    if (this.#encoded?.text !== text) this.#encoded = { text, buf: Buffer.from(text, 'utf8') };
    return cutLine(text, start, this.#encoded.buf);
  }

  /**
   * Whether `file`'s hits not yet returned are more than the page has room for, so that the page
   * fills before their end: hits past a capped file's last are not needed then.
   */
  fillsWith(file: FileHits): boolean {
    if (this.#output !== 'matches') return false;
    let room = this.#maxResults - this.#items;
    for (const h of file.hits) if (!alreadyReturned(this.#from, file.path, h.line, h.column) && --room < 0) return true;
    return false;
  }

  /** Adds a file's results; returns false once the page is full. */
  addFile(file: FileHits, context: ContextSource): boolean {
    if (this.full) return false;
    switch (this.#output) {
      case 'matches':
        for (const h of file.hits) {
          if (alreadyReturned(this.#from, file.path, h.line, h.column)) continue;
          const m = this.#match(file.path, h, context);
          if (!this.#fits(m)) return false;
          this.matches.push(m);
          this.results++;
          this.cursor = { path: file.path, line: h.line, column: h.column };
        }
        break;
      case 'count_only': {
        const c = { path: file.path, count: file.count };
        if (!this.#fits(c)) return false;
        this.counts.push(c);
        this.results += file.count;
        break;
      }
      case 'paths_only':
        if (!this.#fits(file.path)) return false;
        this.paths.push(file.path);
        this.results++;
        break;
    }
    this.cursor = { path: file.path, line: null, column: null };
    return true;
  }

  /** Every file up to and including `path` has been looked at. */
  scannedThrough(path: string): void {
    if (!this.full) this.cursor = { path, line: null, column: null };
  }

  timedOut(): void {
    if (!this.full) this.truncation = 'timeout';
  }
}
