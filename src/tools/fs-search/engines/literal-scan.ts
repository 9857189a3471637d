// The first page of a case-sensitive literal search, scanned in this process instead of by
// ripgrep children, with the answer ripgrep would give (ripgrep stays the oracle: see
// test/tools/fs-search/literal-scan.test.ts).
//
// Why by hand: ripgrep gets the files as /proc/self/fd/<n> (never a name: see ripgrep.ts), and
// each such path costs it ~17 µs more than a name (six statx and an open through procfs, two of
// them on the magic link itself): 10.2 against 5.9 ms for 256 files of this project's search
// corpus, on top of ~1.2 ms to start each child. A common query's first page reads ~300 files
// (~4.5 MB), which ripgrep in two stripes answered in ~13 ms from the spawn; Buffer.indexOf over
// the same bytes, read through the descriptors this search already opens, takes ~4 ms. Only the
// case the bytes alone decide is done here: a case-sensitive literal without a newline, matched
// line by line like `rg --fixed-strings --text` (columns in bytes, non-overlapping, leftmost).
// A file ripgrep would decode first (a UTF-8 or UTF-16 byte order mark: it strips or transcodes
// it) or one larger than IN_PROCESS_MAX_BYTES is handed to ripgrep, alone.
import { closeSync } from 'node:fs';
import { readAtAsync, readInto, SYNC_READ_MAX } from '../../../resources/index.js';
import type { FileReader } from '../file-access.js';
import { reachesCap, stripTerminator, type ResultCap, type ContentQuery, type FileHits, type LineHit, type SearchAnswer } from './types.js';

/** Larger files go to ripgrep: at most this much of a file is held in memory here. */
export const IN_PROCESS_MAX_BYTES = 4 * 1024 * 1024;
/** Bytes scanned between two turns of the event loop. */
const SLICE_BYTES = 512 * 1024;

/** Whether a scan here (scanLiterals, or scanAll on worker threads) answers `q` the way ripgrep would. */
export function scannable(q: ContentQuery): boolean {
  return q.kind === 'literal' && q.caseSensitive && q.multiline !== true && q.pattern.length > 0 && !/[\n\0]|\p{Cs}/u.test(q.pattern);
}

/** A byte order mark ripgrep acts on: UTF-8 (stripped), UTF-16 LE or BE (transcoded). Self-contained: scan-workers.ts runs its source. */
export function hasBom(b: Buffer): boolean {
  return (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) || (b.length >= 2 && ((b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff)));
}

/**
 * Every occurrence of `needle` in `b` on its first `maxLines` matching lines, and at most
 * `maxHits` of them, as ripgrep's match records give them (one hit a submatch; `rg --max-count` bounds the
 * lines only: a page of 200 from one minified line of 2 million matches needs 201 of them, and
 * making them all held the event loop for 1.1 s). Hits at or before `after` (a page that starts
 * inside this file: the last hit returned) are left out and not counted; their lines count
 * toward `maxLines`, as for ripgrep. Calls nothing but `stripTerminator`: scan-workers.ts runs its source in a worker.
 */
export function literalHits(b: Buffer, needle: Buffer, maxLines = Infinity, maxHits = Infinity, after: { readonly line: number; readonly column: number } | null = null): LineHit[] {
  const hits: LineHit[] = [];
  /** Matching lines so far: the scan stops before a hit on one more than `maxLines`, or the hit past `maxHits`. */
  let lines = 0;
  let line = 1;
  let lineStart = 0;
  /**
   * The first newline not yet counted (-1: none left), found once: looking for it again from
   * each hit rescanned the rest of the line per hit, quadratic in a long line of many hits (a
   * 4 MiB line of the needle held the event loop for 75 s).
   */
  let nextNewline = b.indexOf(10);
  /** Whether the current line is counted among the matching lines. */
  let counted = false;
  let text: string | null = null;
  for (let i = b.indexOf(needle); i !== -1 && hits.length < maxHits; i = b.indexOf(needle, i + needle.length)) {
    while (nextNewline !== -1 && nextNewline < i) {
      line++;
      lineStart = nextNewline + 1;
      counted = false;
      text = null;
      nextNewline = b.indexOf(10, lineStart);
    }
    if (!counted) {
      if (lines === maxLines) break;
      lines++;
      counted = true;
    }
    const column = i - lineStart + 1;
    // order.ts's alreadyReturned, written out: the workers run this function's source alone.
    if (after !== null && (line < after.line || (line === after.line && column <= after.column))) {
      // Returned already. A line before the cursor's needs no more looking at (the needle holds no newline).
      if (line < after.line) {
        if (nextNewline === -1) break;
        i = nextNewline + 1 - needle.length;
      }
      continue;
    }
    text ??= stripTerminator(b.toString('utf8', lineStart, nextNewline === -1 ? b.length : nextNewline));
    hits.push({ line, column, end_column: column + needle.length, text });
  }
  return hits;
}

/**
 * Hits as a worker thread sends them: four int32 a hit (line, column, end column, index of its
 * line's text) and each line's text once. Sent as objects, every hit carried its own copy of
 * its line (a structured clone copies strings): one minified line of 100 KB with 20,000
 * matches was 2 GB on the way to the event loop, and a larger one ended the process out of
 * memory. Self-contained: the workers run its source.
 */
export function packHits(hits: readonly { line: number; column: number; end_column: number; text: string }[]): { texts: string[]; at: Int32Array } {
  const texts: string[] = [];
  const at = new Int32Array(hits.length * 4);
  let last: string | null = null;
  for (let i = 0; i < hits.length; i++) {
    const h = hits[i] as { line: number; column: number; end_column: number; text: string };
    if (h.text !== last) {
      texts.push(h.text);
      last = h.text;
    }
    at[4 * i] = h.line;
    at[4 * i + 1] = h.column;
    at[4 * i + 2] = h.end_column;
    at[4 * i + 3] = texts.length - 1;
  }
  return { texts, at };
}

/** The hits packHits packed, each line's text one string again for all its hits. */
export function unpackHits(p: { readonly texts: readonly string[]; readonly at: Int32Array }): LineHit[] {
  const hits: LineHit[] = new Array<LineHit>(p.at.length / 4);
  for (let i = 0; i < hits.length; i++) hits[i] = { line: p.at[4 * i] as number, column: p.at[4 * i + 1] as number, end_column: p.at[4 * i + 2] as number, text: p.texts[p.at[4 * i + 3] as number] as string };
  return hits;
}

type Delegate = (path: string) => Promise<SearchAnswer>;

/**
 * Searches `files` in order until `stopAfter` matches are found, at a file boundary; `searched`
 * counts the files finished. `delegate` searches one file with ripgrep (one with a byte order
 * mark, or too large to hold here).
 */
export async function scanLiterals(files: readonly string[], q: ContentQuery, reader: FileReader, signal: AbortSignal, stopAfter: number, delegate: Delegate, cap?: ResultCap): Promise<SearchAnswer> {
  const needle = Buffer.from(q.pattern, 'utf8');
  // Small files are read into one buffer on this thread (a page-cache copy of at most 64 KiB),
  // larger ones on the thread pool. A read that fills what was asked for means the file is
  // larger than its size when opened (it grows): it is handed to ripgrep.
  const scratch = Buffer.allocUnsafeSlow(SYNC_READ_MAX + 1);
  const found: FileHits[] = [];
  let total = 0;
  let sinceYield = 0;
  for (let i = 0; i < files.length; i++) {
    if (sinceYield >= SLICE_BYTES) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    signal.throwIfAborted();
    const path = files[i] as string;
    const fd = reader.open(path);
    if (fd === null) continue; // gone, a link or not a regular file now: not searched
    let data: Buffer | null = null;
    try {
      const size = reader.openedSize(path) ?? IN_PROCESS_MAX_BYTES;
      const want = size < SYNC_READ_MAX ? scratch.length : Math.min(size, IN_PROCESS_MAX_BYTES) + 1;
      const got = want === scratch.length ? readInto(fd, scratch) : await readAtAsync(fd, 0, want, signal);
      if (got.length < want) data = got;
    } finally {
      closeSync(fd);
    }
    let hits: FileHits | undefined;
    if (data === null || hasBom(data)) {
      hits = (await delegate(path)).found[0];
    } else {
      sinceYield += data.length;
      const lineHits = literalHits(data, needle, cap?.lines, cap?.hits, cap?.after?.path === path ? cap.after : null);
      if (lineHits.length > 0) hits = { path, hits: lineHits, count: lineHits.length, ...(reachesCap(lineHits, cap) ? { capped: true } : {}) };
    }
    if (hits !== undefined && hits.count > 0) {
      found.push(hits);
      total += hits.count;
      if (total >= stopAfter) return { found, searched: i + 1 };
    }
  }
  return { found, searched: files.length };
}
