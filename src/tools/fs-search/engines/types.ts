// What a content engine (ripgrep, or the JavaScript fallback) is asked and what it answers.
import type { FileReader } from '../file-access.js';

export interface ContentQuery {
  readonly kind: 'literal' | 'regex';
  readonly pattern: string;
  readonly caseSensitive: boolean;
  /** `lines`: every match with its line; `counts`: matches per file; `paths`: files with a match. */
  readonly want: 'lines' | 'counts' | 'paths';
  /** regex: a match may span lines, `.` matching newlines (ripgrep only). */
  readonly multiline?: boolean;
}

export interface LineHit {
  readonly line: number;
  /** 1-based byte columns; `end_column` is just past the match. */
  readonly column: number;
  readonly end_column: number;
  /** The whole line, terminator stripped (present when `want` is `lines`). */
  readonly text: string;
  /** symbol mode: what the definition is. */
  readonly kind?: string;
  /**
   * structural mode: the 1-based line the match ends on, when past `line`. symbol mode: the
   * line the whole definition ends on (its body's last line; the columns are the name's, on `line`).
   */
  readonly end_line?: number;
  /** symbol mode: the enclosing definitions, outermost first, joined with `.` (`ConfigStore`, `Outer.Inner`); absent at top level. */
  readonly container?: string;
}

export interface FileHits {
  readonly path: string;
  /** In line, then column order (empty unless `want` is `lines`). */
  readonly hits: readonly LineHit[];
  readonly count: number;
  /**
   * The hits stop at the `cap` the search was given (its lines, or its hits): the file may hold more
   * (a page that does not fill with these must search the file again without the cap).
   */
  readonly capped?: boolean;
}

/** Where a file's hits may stop (want `lines`). */
export interface ResultCap {
  /** Matching lines (ripgrep's `--max-count`). */
  readonly lines: number;
  /** Hits, not counting those at or before `after`. */
  readonly hits: number;
  /**
   * Where a page that starts inside a file resumes: the last hit returned, in `path`. That file's
   * hits at or before it are returned already: an engine leaves them out (and need not make
   * them). Without it such a page had no cap on hits, and one minified line of 2 million
   * matches was parsed whole for each later page (~1 s of the event loop, ~1 GB).
   */
  readonly after?: { readonly path: string; readonly line: number; readonly column: number };
}

/** Whether `hits` (in line order) reach `cap`: the file may hold more than they. */
export function reachesCap(hits: readonly LineHit[], cap: ResultCap | undefined): boolean {
  if (cap === undefined) return false;
  if (hits.length >= cap.hits) return true;
  let lines = 0;
  let last = -1;
  for (const h of hits) {
    if (h.line !== last) lines++;
    last = h.line;
  }
  return lines >= cap.lines;
}

export interface SearchAnswer {
  readonly found: FileHits[];
  readonly searched: number;
}

export interface ContentEngine {
  readonly name: 'ripgrep' | 'javascript';
  /** Throws `invalid_arguments` with the engine's own message for a pattern it rejects. */
  validate(query: ContentQuery, signal: AbortSignal): Promise<void>;
  /**
   * Searches `files` (workspace-relative, in order); the answer is in the same order. With
   * `stopAfter`, the engine may stop at a file boundary once it has found that many matches:
   * `searched` says how many of `files` (from the first) were searched completely. With
   * `cap` (want `lines`), the engine may stop reading a file after that many matching lines or
   * hits, and says so (`capped`): a page of 200 results needs 201 of them, not a log file's million.
   */
  search(files: readonly string[], query: ContentQuery, reader: FileReader, signal: AbortSignal, stopAfter?: number, cap?: ResultCap): Promise<SearchAnswer>;
  /** Frees what the engine holds (worker threads). */
  close(): Promise<void>;
}

/** Strips one trailing `\n` and then one `\r`. */
export function stripTerminator(line: string): string {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) === 10) end--;
  if (end > 0 && line.charCodeAt(end - 1) === 13) end--;
  return end === line.length ? line : line.slice(0, end);
}
