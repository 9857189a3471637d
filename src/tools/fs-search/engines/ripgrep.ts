// ripgrep: Rust's regex crate (finite automata, linear in the input: no pattern can make it
// backtrack), searching the files we list, in parallel. We sort its answer ourselves.
//
// ripgrep never opens a workspace path by name: a name resolves through whatever the directory
// holds at that instant, and a directory swapped for a link to the outside would be read
// through. Each file is opened here, beneath the root and without following links (the
// FileReader), and the open descriptor is handed to the child (at its own number through
// posix_spawn, else as fd 3 + i); ripgrep runs in its own `/proc/self/fd` and searches `<n>`,
// which reopens that same inode (a magic link, not a path walk), and its answers are mapped back
// to workspace paths.
import { closeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ToolgateError } from '../../../protocol/index.js';
import { hasPosixSpawn, readAt, RecordSplitter, runChild, spawnChild, type ChildOptions, type ChildResult } from '../../../resources/index.js';
import { BINARY_SNIFF_BYTES, type FileReader } from '../file-access.js';
import { alreadyReturned, comparePaths } from '../order.js';
import { fdsPerRun } from '../fd-budget.js';
import { scanLiterals, scannable } from './literal-scan.js';
import { scanAll, type ScanWorkers } from './scan-workers.js';
import { stripTerminator, type ContentEngine, type ContentQuery, type FileHits, type LineHit, type ResultCap, type SearchAnswer } from './types.js';

interface RgText {
  readonly text?: string;
  readonly bytes?: string;
}
interface RgMatch {
  readonly type: string;
  readonly data: {
    readonly path: RgText;
    readonly lines: RgText;
    readonly line_number: number;
    readonly submatches: readonly { readonly start: number; readonly end: number }[];
  };
}

/** Records longer than this are parsed without all their submatches when a page needs only some. */
const LARGE_RECORD_BYTES = 256 * 1024;
const SUBMATCHES = Buffer.from(',"submatches":[');
const MATCH_OPEN = Buffer.from('{"match":{"');
/** What follows a submatch's text: `},"start":N,"end":M}`. */
const AFTER_TEXT = Buffer.from('},"start":');
const END_FIELD = Buffer.from(',"end":');
/** Where the digits digitsAt read last end. */
let digitsEnd = 0;

/** The decimal number at rec[i…] (its end in digitsEnd), or -1 when no digit is there. */
function digitsAt(rec: Buffer, i: number): number {
  let n = 0;
  let j = i;
  for (let c = rec[j]; c !== undefined && c >= 0x30 && c <= 0x39; c = rec[++j]) n = n * 10 + (c - 0x30);
  digitsEnd = j;
  return j === i || j - i > 15 ? -1 : n;
}

/**
 * A match record with at most `max` of its submatches, and whether it holds more; null when
 * its shape is not the one expected (the caller parses it whole). One minified line of 2
 * million matches is one record of ~100 MB: parsed whole for a page of 200, it held the event
 * loop for ~1 s. The record's head (path, lines, line number) is parsed as JSON; then each
 * submatch, `{"match":{"text"|"bytes":STRING},"start":N,"end":M}`, is read up to `max`. A JSON
 * string holds no unescaped quote, so neither `,"submatches":[` nor `},"start":` can occur
 * inside one: each submatch's text is stepped over with one search, not read.
 *
 * `through(line, path)`: submatches starting at or before this column (1-based) are returned
 * already (a page that resumes inside this one-line record) and are neither kept nor counted;
 * Infinity: all of them (the record holds none the page needs, and none more).
 */
export function parseMatchHead(rec: Buffer, max: number, through: (line: number, path: RgText) => number = () => 0): { readonly m: RgMatch; readonly more: boolean } | null {
  const at = rec.indexOf(SUBMATCHES);
  if (at === -1) return null;
  let head: { type: string; data: Omit<RgMatch['data'], 'submatches'> };
  try {
    head = JSON.parse(`${rec.toString('utf8', 0, at)}}}`) as typeof head;
  } catch {
    return null;
  }
  const skip = through(head.data.line_number, head.data.path);
  const submatches: { start: number; end: number }[] = [];
  let i = at + SUBMATCHES.length;
  /** Whether a submatch past `skip` was seen: every later one is past it too (they come in order). */
  let past = skip < 1;
  let more = false;
  while (skip !== Infinity && rec[i] === 0x7b /* { */) {
    if (past && submatches.length >= max) {
      more = true;
      break;
    }
    if (rec.compare(MATCH_OPEN, 0, MATCH_OPEN.length, i, i + MATCH_OPEN.length) !== 0) return null;
    const text = rec.indexOf(AFTER_TEXT, i + MATCH_OPEN.length);
    if (text === -1) return null;
    // `},"start":N,"end":M}`, read byte by byte: a page deep in a line steps over every submatch before it.
    const start = digitsAt(rec, text + AFTER_TEXT.length);
    if (start < 0 || rec.compare(END_FIELD, 0, END_FIELD.length, digitsEnd, digitsEnd + END_FIELD.length) !== 0) return null;
    const end = digitsAt(rec, digitsEnd + END_FIELD.length);
    if (end < 0 || rec[digitsEnd] !== 0x7d /* } */) return null;
    if (start + 1 > skip) {
      past = true;
      if (submatches.length >= max) {
        more = true;
        break;
      }
      submatches.push({ start, end });
    }
    i = digitsEnd + 1;
    if (rec[i] === 0x2c /* , */) i++;
  }
  return { m: { type: head.type, data: { ...head.data, submatches } }, more };
}

function textOf(t: RgText): string {
  return t.text ?? Buffer.from(t.bytes ?? '', 'base64').toString('utf8');
}

/**
 * The submatches of a match record, in order: its `lines` are one line, or several for a
 * multiline match (offsets in bytes from their start). A hit names the line it starts on, its
 * columns there and on the line it ends on, and that line's text. One walk for the record: each
 * newline is found once and each line's text made once (from the start of `lines` for every
 * submatch, a 1 MB line of a million matches was 10^12 bytes looked at and a million copies of it).
 */
function submatchWalk(lines: Buffer, firstLine: number): (s: { readonly start: number; readonly end: number }) => LineHit {
  let line = firstLine;
  let lineStart = 0;
  /** The first newline at or after lineStart (-1: none). */
  let next = lines.indexOf(10);
  let text: string | null = null;
  return (s) => {
    while (next !== -1 && next < s.start) {
      lineStart = next + 1;
      line++;
      text = null;
      next = lines.indexOf(10, lineStart);
    }
    text ??= stripTerminator(lines.toString('utf8', lineStart, next === -1 ? lines.length : next + 1));
    let endStart = lineStart;
    let endLine = line;
    // The match's last byte decides its line (a match ending in a newline ends on that line).
    for (let i = next; i !== -1 && i < s.end - 1; i = lines.indexOf(10, i + 1)) {
      endStart = i + 1;
      endLine++;
    }
    const hit = { line, column: s.start - lineStart + 1, end_column: s.end - endStart + 1, text };
    return endLine > line ? { ...hit, end_line: endLine } : hit;
  };
}

function baseArgs(q: ContentQuery): string[] {
  const args = ['--no-config', '--no-ignore', '--hidden', '--no-messages', '--text', '--color', 'never'];
  if (q.kind === 'literal') args.push('--fixed-strings');
  if (q.multiline === true) args.push('--multiline', '--multiline-dotall');
  args.push(q.caseSensitive ? '--case-sensitive' : '--ignore-case');
  return args;
}

/** Fewest files worth a ripgrep run of their own when a first batch is split. */
const MIN_PART = 128;
/** The child's fd of the first file handed to it (after stdin, stdout, stderr). */
const FIRST_CHILD_FD = 3;
/**
 * The child runs in its own descriptor directory and names each file by its number (`7`, not
 * `/proc/self/fd/7`): each reopen is then one lookup in that directory, not a walk through
 * `/proc` and the `self` link. ripgrep does six lookups a file (the path is a link to it):
 * 256 files took it 10.3 ms as `/proc/self/fd/<n>`, 8.0 ms as `<n>`, 6.0 ms by name.
 */
const CHILD_CWD = '/proc/self/fd';
const CHILD_PATH = /^\d+$/;
/** The child path of an `end` record (its first field after the type). */
const END_PATH = /^\{"type":"end","data":\{"path":\{"text":"(\d+)"/;

/**
 * A ripgrep child: through posix_spawn where it loads (no fork of this process; the files keep
 * their descriptor numbers in the child), else child_process (the files become fds 3, 4, …).
 */
function startRipgrep(rg: string, args: readonly string[], opts: ChildOptions): Promise<ChildResult> {
  return spawnChild(rg, args, opts) ?? runChild(rg, args, opts);
}

/** The child's descriptor number of each handed file, as startRipgrep will arrange them. */
function childNumbers(fds: readonly number[]): readonly number[] {
  return hasPosixSpawn() ? fds : fds.map((_, i) => FIRST_CHILD_FD + i);
}

/**
 * The runs of a first batch, each over one stripe of its files (run r gets files r, r + parts,
 * r + 2·parts, … in order, on one thread): the answer is the prefix of the batch that every run
 * has finished, and they all stop once that prefix holds `stopAfter` matches. A run has finished
 * every file of its stripe up to one whose `end` it printed (ripgrep prints `end` only for
 * files with matches), and all of them once it exits.
 */
class Stripes {
  readonly #next: number[];
  readonly #hits: Uint32Array;
  readonly #index: Map<string, number>;
  readonly #halts: (() => void)[] = [];
  #prefix = 0;
  #total = 0;
  /** Files before this index make the answer; null until the prefix holds enough. */
  stopAt: number | null = null;

  constructor(
    readonly files: readonly string[],
    readonly parts: number,
    readonly stopAfter: number,
  ) {
    this.#next = Array.from({ length: parts }, (_, r) => r);
    this.#hits = new Uint32Array(files.length);
    this.#index = new Map(files.map((f, i) => [f, i]));
  }

  stripe(r: number): string[] {
    const out: string[] = [];
    for (let i = r; i < this.files.length; i += this.parts) out.push(this.files[i] as string);
    return out;
  }

  indexOf(path: string): number | undefined {
    return this.#index.get(path);
  }

  onHalt(halt: () => void): void {
    this.#halts.push(halt);
  }

  matched(i: number, count: number): void {
    this.#hits[i] = (this.#hits[i] as number) + count;
  }

  /** Run r printed the `end` of file i. */
  ended(r: number, i: number): void {
    this.#next[r] = Math.max(this.#next[r] as number, i + this.parts);
    this.#advance();
  }

  /** Run r exited by itself: it went through its stripe up to (not including) file `limit`. */
  finished(r: number, limit: number): void {
    this.#next[r] = Math.max(this.#next[r] as number, limit);
    this.#advance();
  }

  /** The files every run has finished, from the first: what the batch searched. */
  searched(): number {
    return this.stopAt ?? Math.min(this.files.length, ...this.#next);
  }

  #advance(): void {
    const upTo = Math.min(this.files.length, ...this.#next);
    while (this.stopAt === null && this.#prefix < upTo) {
      this.#total += this.#hits[this.#prefix++] as number;
      if (this.#total >= this.stopAfter) this.stopAt = this.#prefix;
    }
    if (this.stopAt !== null) this.haltAll();
  }

  /** Stops every run still going. */
  haltAll(): void {
    for (const halt of this.#halts.splice(0)) halt();
  }
}

/** A striped run went through its stripe: all of it, or up to the first file the descriptor budget left out. */
function finishStripe(striped: { readonly stripes: Stripes; readonly part: number } | undefined, files: readonly string[], all: readonly string[]): void {
  if (striped === undefined) return;
  striped.stripes.finished(striped.part, files.length < all.length ? (striped.stripes.indexOf(all[files.length] as string) ?? 0) : striped.stripes.files.length);
}

/** Files opened beneath the root for one run, and the workspace path of each. */
interface Handed {
  readonly fds: number[];
  readonly paths: string[];
}

/**
 * A file this large is looked at before ripgrep gets it: ripgrep (with --text, so that a text
 * file with a stray NUL is still searched) reads every byte, and a binary file's matches are
 * dropped afterwards anyway (run-search.ts). A 1 TiB sparse file took the whole search timeout;
 * one whose first bytes hold a NUL is not handed over. Smaller files are not read twice.
 */
const LARGE_FILE_BYTES = 16 * 1024 * 1024;

function isLargeBinary(fd: number, size: number | null): boolean {
  if (size === null || size < LARGE_FILE_BYTES) return false;
  return readAt(fd, 0, BINARY_SNIFF_BYTES).includes(0);
}

function handOver(files: readonly string[], reader: FileReader): Handed {
  const h: Handed = { fds: [], paths: [] };
  try {
    for (const path of files) {
      const fd = reader.open(path);
      if (fd === null) continue; // gone, a link or not a regular file now: not searched
      if (isLargeBinary(fd, reader.openedSize(path))) {
        closeSync(fd);
        continue;
      }
      h.fds.push(fd);
      h.paths.push(path);
    }
  } catch (e) {
    for (const fd of h.fds) closeSync(fd);
    throw e;
  }
  return h;
}

/** Files opened between two turns of the event loop while a run searches. */
const OPEN_SLICE = 512;
/** The first of several runs over every file: small, so that ripgrep starts soon. */
const FIRST_RUN = 1024;

/** handOver in slices, a turn of the event loop between them; the fds are the caller's (closed here on failure). */
async function handOverYielding(files: readonly string[], reader: FileReader, signal: AbortSignal): Promise<Handed> {
  const h: Handed = { fds: [], paths: [] };
  try {
    for (let i = 0; i < files.length; i += OPEN_SLICE) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
      const part = handOver(files.slice(i, i + OPEN_SLICE), reader);
      h.fds.push(...part.fds);
      h.paths.push(...part.paths);
    }
  } catch (e) {
    for (const fd of h.fds) closeSync(fd);
    throw e;
  }
  return h;
}

export class RipgrepEngine implements ContentEngine {
  readonly name = 'ripgrep' as const;
  readonly #rg: string;
  readonly #root: string;
  readonly #parallelism: number;
  readonly #perRun: number;
  readonly #inProcess: boolean;
  readonly #workers: ScanWorkers | null;

  /**
   * @param inProcess scan a first page of a case-sensitive literal here (literal-scan.ts), and
   *   its full scans on `workers` when given (scan-workers.ts); false: always ripgrep (tests).
   */
  constructor(rg: string, root: string, parallelism = availableParallelism(), perRun = fdsPerRun(), inProcess = true, workers: ScanWorkers | null = null) {
    this.#rg = rg;
    this.#root = root;
    this.#parallelism = parallelism;
    this.#perRun = perRun;
    this.#inProcess = inProcess;
    this.#workers = workers;
  }

  async validate(q: ContentQuery, signal: AbortSignal): Promise<void> {
    if (q.kind !== 'regex') return;
    // An empty input: rg compiles the pattern and exits 1 (no match) or 2 (it rejected it).
    const r = await startRipgrep(this.#rg, [...baseArgs(q), '--regexp', q.pattern, '-'], { cwd: this.#root, signal, onStdout: () => {} });
    signal.throwIfAborted();
    if (r.code === 2) {
      throw new ToolgateError('invalid_arguments', `invalid regex: ${r.stderr.trim()}`, { faults: [{ pointer: '/query', message: r.stderr.trim() }], engine: 'ripgrep' });
    }
  }

  async search(files: readonly string[], q: ContentQuery, reader: FileReader, signal: AbortSignal, stopAfter?: number, resultCap?: ResultCap): Promise<SearchAnswer> {
    const cap = q.want === 'lines' ? resultCap : undefined;
    if (stopAfter === undefined || q.want !== 'lines') {
      // Every file, of a literal the bytes alone decide: read on worker threads, no child unless a file needs ripgrep.
      if (this.#inProcess && this.#workers !== null && scannable(q)) return scanAll(files, q, reader, signal, this.#workers, (paths) => this.#runAll(paths, q, reader, signal, cap), cap);
      return this.#runAll(files, q, reader, signal, cap);
    }
    // A page that ends early, of a literal the bytes alone decide: read here, no child at all.
    if (this.#inProcess && scannable(q)) return scanLiterals(files, q, reader, signal, stopAfter, (path) => this.#run([path], q, reader, signal, { cap }), cap);
    // Stopping early needs each run to read its files in order, on one thread; one such run per
    // core keeps the cores busy. The runs take the files in stripes (not consecutive parts), so
    // that the prefix a page needs is searched by all of them at once: a common query's page,
    // filled within the first few hundred files, takes about 1/parts of the time of one run.
    // Starting a run costs this thread little (the files' opens, ~1.5 µs each, and a
    // posix_spawn on the thread pool), so they all start at once.
    const parts = files.length < 2 * MIN_PART ? 1 : Math.max(1, Math.min(this.#parallelism, Math.floor(files.length / MIN_PART)));
    const stripes = new Stripes(files, parts, stopAfter);
    const runs: Promise<SearchAnswer>[] = [];
    try {
      for (let r = 0; r < parts; r++) {
        const run = this.#run(stripes.stripe(r), q, reader, signal, { striped: { stripes, part: r }, cap });
        // Awaited in order below; one that fails while an earlier one is awaited is not unhandled.
        run.catch(() => undefined);
        runs.push(run);
      }
      const found: FileHits[] = [];
      for (const run of runs) found.push(...(await run).found);
      // A file past the prefix every run finished may have been read only in part.
      const searched = stripes.searched();
      return { found: found.filter((f) => (stripes.indexOf(f.path) ?? files.length) < searched).sort((a, b) => comparePaths(a.path, b.path)), searched };
    } finally {
      // On an error in one run, the others are not needed.
      stripes.haltAll();
      await Promise.allSettled(runs);
    }
  }

  /**
   * Every file, in consecutive runs (each uses every thread). The files of the next run are
   * opened while the current one searches (in slices, so that its output is read meanwhile),
   * and it starts as soon as they are open: opening costs ~5 µs a file here, which used to
   * come between the runs; at most two run at once. The first run is small, to start soon.
   */
  async #runAll(files: readonly string[], q: ContentQuery, reader: FileReader, signal: AbortSignal, cap?: ResultCap): Promise<SearchAnswer> {
    const runs: Promise<SearchAnswer>[] = [];
    let opening: Promise<Handed> | null = null;
    try {
      let i = 0;
      let size = Math.min(this.#perRun, FIRST_RUN);
      while (i < files.length) {
        const slice = files.slice(i, i + size);
        const handed = opening !== null ? await opening : handOver(slice, reader);
        opening = null;
        if (runs.length >= 2) await runs[runs.length - 2];
        const run = this.#run(slice, q, reader, signal, { opened: handed, cap });
        // Awaited in order below; one that fails while an earlier one is awaited is not unhandled.
        run.catch(() => undefined);
        runs.push(run);
        i += slice.length;
        size = this.#perRun;
        if (i < files.length) opening = handOverYielding(files.slice(i, i + size), reader, signal);
      }
      const found: FileHits[] = [];
      // Consecutive slices of a sorted list: their sorted answers concatenate in order.
      for (const run of runs) found.push(...(await run).found);
      return { found, searched: files.length };
    } finally {
      if (opening !== null) for (const fd of (await opening.catch(() => null))?.fds ?? []) closeSync(fd);
      await Promise.allSettled(runs);
    }
  }

  /**
   * One ripgrep run over at most #perRun of `files` (the first ones); `searched` counts from the
   * first of `files`, so a run cut by the descriptor budget reads like one that stopped early.
   * `striped`: one of the runs of a page that stops early; `opened`: the files, opened already;
   * `cap`: where a file's hits may stop.
   */
  async #run(all: readonly string[], q: ContentQuery, reader: FileReader, signal: AbortSignal, o: { readonly striped?: { readonly stripes: Stripes; readonly part: number }; readonly opened?: Handed; readonly cap?: ResultCap | undefined } = {}): Promise<SearchAnswer> {
    const { striped, opened, cap } = o;
    const files = all.length > this.#perRun ? all.slice(0, this.#perRun) : all;
    if (signal.aborted || files.length === 0) {
      for (const fd of opened?.fds ?? []) closeSync(fd);
      signal.throwIfAborted();
      return { found: [], searched: 0 };
    }
    // To stop early, one thread searches the files in the order given, so that everything
    // before a file's `end` message is complete; otherwise ripgrep spreads them over threads.
    // Such a run writes each line as it goes (not in blocks), so that its progress shows.
    const early = striped !== undefined && q.want === 'lines';
    const args = [...baseArgs(q), '--with-filename', ...(early ? ['--threads', '1', '--line-buffered'] : [])];
    if (q.want === 'lines') args.push('--json', ...(cap !== undefined && Number.isFinite(cap.lines) ? ['--max-count', String(cap.lines)] : []));
    else if (q.want === 'counts') args.push('--count-matches', '--null');
    else args.push('--files-with-matches', '--null');
    // Opened right before the child starts (or while the run before it searched: `opened`, the
    // same files) and closed as soon as it has them (runChild).
    const handed = opened ?? handOver(files, reader);
    // Nothing left to search (every file gone, a link now, or a large binary): no child. ripgrep
    // without a path would search its working directory, by name.
    if (handed.fds.length === 0) {
      finishStripe(striped, files, all);
      return { found: [], searched: files.length };
    }
    const byChildFd = new Map<number, string>();
    args.push('--regexp', q.pattern, '--');
    childNumbers(handed.fds).forEach((n, i) => {
      byChildFd.set(n, handed.paths[i] as string);
      args.push(String(n));
    });
    const pathOf = (childPath: string): string | undefined => (CHILD_PATH.test(childPath) ? byChildFd.get(Number(childPath)) : undefined);

    /** `records`: match records (a matching line, or a multiline match): what --max-count counts. */
    type Entry = { hits: LineHit[]; count: number; records: number; cut: boolean };
    const byPath = new Map<string, Entry>();
    const entryOf = (path: string): Entry => {
      let e = byPath.get(path);
      if (!e) byPath.set(path, (e = { hits: [], count: 0, records: 0, cut: false }));
      return e;
    };
    const entry = (childPath: string): Entry | undefined => {
      const path = pathOf(childPath);
      return path === undefined ? undefined : entryOf(path);
    };
    const stripes = early ? striped.stripes : null;
    // A page that resumes inside a file: that file's hits at or before its cursor are returned already.
    const after = cap?.after;
    const through = (line: number, p: RgText): number =>
      after === undefined || q.multiline === true || pathOf(textOf(p)) !== after.path ? 0 : line < after.line ? Infinity : line === after.line ? after.column : 0;
    /** A match record's hits; `more`: it holds more than were read (the file is capped). */
    const takeMatch = (m: RgMatch, more: boolean): void => {
      if (m.type !== 'match') return;
      const path = pathOf(textOf(m.data.path));
      if (path === undefined) return;
      const e = entryOf(path);
      e.records++;
      // A record cut short holds more hits than a page can use: the file is capped.
      if (more) e.cut = true;
      // A record holds several lines only in multiline mode; a one-line record needs no byte walk.
      const text = textOf(m.data.lines);
      const walk = q.multiline === true ? submatchWalk(Buffer.from(text, 'utf8'), m.data.line_number) : null;
      const line = walk === null ? stripTerminator(text) : '';
      let count = 0;
      for (const s of m.data.submatches) {
        if (s.end === s.start) continue; // an empty match points at nothing
        const hit = walk === null ? { line: m.data.line_number, column: s.start + 1, end_column: s.end + 1, text: line } : walk(s);
        if (after !== undefined && alreadyReturned(after, path, hit.line, hit.column)) continue;
        e.hits.push(hit);
        e.count++;
        count++;
      }
      const at = stripes?.indexOf(path);
      if (stripes !== null && at !== undefined) stripes.matched(at, count);
    };
    const onRecord = (rec: Buffer): boolean | void => {
      if (q.want === 'lines') {
        if (rec.length === 0 || rec[0] !== 0x7b) return;
        if (stripes !== null && striped !== undefined && rec.includes('"type":"end"')) {
          // Our child paths are ASCII (descriptor numbers): no need to parse the whole record.
          const fd = END_PATH.exec(rec.toString('latin1', 0, 120))?.[1];
          const path = fd === undefined ? undefined : byChildFd.get(Number(fd));
          const at = path === undefined ? undefined : stripes.indexOf(path);
          if (at !== undefined) stripes.ended(striped.part, at);
          return stripes.stopAt === null;
        }
        if (!rec.includes('"type":"match"')) return;
        const cut = cap !== undefined && Number.isFinite(cap.hits) && rec.length > LARGE_RECORD_BYTES ? parseMatchHead(rec, cap.hits, through) : null;
        takeMatch(cut?.m ?? (JSON.parse(rec.toString('utf8')) as RgMatch), cut?.more === true);
      } else if (q.want === 'counts') {
        const nul = rec.indexOf(0);
        if (nul === -1) return;
        const e = entry(rec.toString('utf8', 0, nul));
        if (e) e.count += Number(rec.toString('utf8', nul + 1));
      } else if (rec.length) {
        const e = entry(rec.toString('utf8'));
        if (e) e.count = 1;
      }
    };
    const answer = (): SearchAnswer => {
      const out: FileHits[] = [];
      for (const [path, e] of byPath) {
        const capped = cap !== undefined && (e.cut || e.records >= cap.lines || e.hits.length >= cap.hits);
        // A capped file of empty matches only is kept: the lines after the cap may hold more.
        if (e.count === 0 && !capped) continue;
        e.hits.sort((a, b) => a.line - b.line || a.column - b.column);
        out.push({ path, hits: e.hits, count: e.count, ...(capped ? { capped: true } : {}) });
      }
      // A striped run's answer is cut to the prefix every run finished by search().
      return { found: out.sort((a, b) => comparePaths(a.path, b.path)), searched: files.length };
    };
    const splitter = new RecordSplitter(q.want === 'paths' ? 0 : 10);
    /**
     * A run that prints its records in file order (one thread, or one file) need not wait for
     * the end of a long match record: once its head and the submatches the page needs have
     * come, the file is capped and nothing after it is needed (its hits fill the page), and the
     * child is stopped. One minified line of 2 million matches is a ~100 MB record, which was
     * held whole (~0.5 GB of this process) while ripgrep wrote all of it (~0.7–1.5 s). A record
     * the page needs nothing of (a line before its cursor) is dropped as it comes. The record
     * so far is looked at each time it has doubled.
     */
    const inOrder = q.want === 'lines' && cap !== undefined && Number.isFinite(cap.hits) && (early || files.length === 1);
    let lookAt = LARGE_RECORD_BYTES;
    const onLong = (): boolean => {
      lookAt = 2 * splitter.pendingBytes;
      const rec = splitter.pending();
      if (!rec.subarray(0, 64).includes('"type":"match"')) return true;
      const cut = parseMatchHead(rec, (cap as ResultCap).hits, through);
      if (cut === null) return true; // its head has not all come yet
      const none = through(cut.m.data.line_number, cut.m.data.path) === Infinity;
      if (!none && !cut.more) return true; // fewer submatches so far than the page needs
      takeMatch(cut.m, cut.more);
      if (none) {
        splitter.skipRest();
        lookAt = LARGE_RECORD_BYTES;
        return true;
      }
      const path = pathOf(textOf(cut.m.data.path));
      const at = path === undefined ? undefined : stripes?.indexOf(path);
      if (stripes !== null && striped !== undefined && at !== undefined) stripes.ended(striped.part, at);
      return false;
    };
    let stopped = false;
    let stoppedNow = (): void => {};
    const stoppedEarly = new Promise<null>((resolve) => (stoppedNow = () => resolve(null)));
    // Another stripe's run may complete the page: this one is halted then.
    const halt = new AbortController();
    striped?.stripes.onHalt(() => {
      stopped = true;
      stoppedNow();
      halt.abort();
    });
    const child = startRipgrep(this.#rg, args, {
      cwd: CHILD_CWD,
      signal: AbortSignal.any([signal, halt.signal]),
      fds: handed.fds,
      onStdout: (chunk) => {
        if (stopped) return false;
        stopped = !splitter.push(chunk, onRecord);
        if (!stopped && inOrder) {
          if (splitter.pendingBytes < LARGE_RECORD_BYTES) lookAt = LARGE_RECORD_BYTES;
          else if (splitter.pendingBytes >= lookAt) stopped = !onLong();
        }
        if (stopped) stoppedNow();
        return !stopped;
      },
    });
    // Once stopped, the answer is complete: it is built while the killed child is reaped
    // (1–3 ms), and close() waits for that.
    this.#exiting.add(child);
    void child.then(
      () => this.#exiting.delete(child),
      () => this.#exiting.delete(child),
    );
    const r = await Promise.race([child, stoppedEarly]);
    signal.throwIfAborted();
    if (r === null) return answer();
    if (!stopped) {
      const last = splitter.flush();
      if (last) onRecord(last);
    }
    // 0: matches, 1: none, 2: some file could not be read (vanished since it was listed).
    if (!stopped && r.code !== 0 && r.code !== 1 && r.code !== 2) {
      throw new ToolgateError('execution_failed', `ripgrep ended with ${r.code ?? r.signal}: ${r.stderr.trim()}`, { engine: 'ripgrep' });
    }
    if (!stopped) finishStripe(striped, files, all);
    return answer();
  }

  /** Children stopped early that are still being reaped; close() waits for them. */
  readonly #exiting = new Set<Promise<unknown>>();

  async close(): Promise<void> {
    await Promise.allSettled([...this.#exiting]);
  }
}
