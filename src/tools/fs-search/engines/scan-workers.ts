// Full scans of a case-sensitive literal (counts, paths, or every match past a first page) on
// worker threads, with ripgrep's answer: this thread opens each file beneath the root (the
// FileReader, as for ripgrep) and hands the descriptors to a worker, which reads them (the fd
// table is the process's) and matches with Buffer.indexOf (literal-scan.ts's own functions, run
// from their source). Descriptors are closed here once their worker has answered.
//
// Why: ripgrep reopens every handed file through procfs (six lookups and an open a file), and
// this thread's side of a run (the open, fstat, a dup2 into the child and the close) kept it
// busy ~216 ms of a ~300 ms full count over 17,800 files. A worker reading the descriptors
// already open costs a read and an indexOf a file: a full count over those files took 145–183
// ms with this thread opening and one or two workers matching, against `git grep -c`'s ~180 ms.
//
// A file larger than IN_PROCESS_MAX_BYTES, one with a byte order mark, or one that grew past
// its size since it was opened is searched by ripgrep instead (`delegate`). Every message is
// bounded (SLICE_FILES files, SLICE_BYTES bytes by their sizes, at most each file's size + 1
// read), so an abort stops sending and waits for at most the slices in flight.
import { closeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ToolgateError } from '../../../protocol/index.js';
import { nextTurn, readInto } from '../../../resources/index.js';
import type { FileReader } from '../file-access.js';
import { comparePaths, mergeInOrder } from '../order.js';
import { hasBom, IN_PROCESS_MAX_BYTES, literalHits, packHits, unpackHits } from './literal-scan.js';
import { reachesCap, stripTerminator, type ResultCap, type ContentQuery, type FileHits, type SearchAnswer } from './types.js';

const SLICE_FILES = 256;
const SLICE_BYTES = 4 * 1024 * 1024;
const IN_FLIGHT_PER_WORKER = 2;

/** A file's answer: its matches, none (null), or `delegate` (ripgrep decides). */
/** A file's answer: `packed` (packHits) when lines were asked for. */
type Answer = null | 'delegate' | { readonly count: number; readonly packed: { readonly texts: string[]; readonly at: Int32Array } | null };

interface Request {
  readonly id: number;
  readonly needle: Uint8Array;
  readonly want: ContentQuery['want'];
  readonly fds: readonly number[];
  readonly sizes: readonly number[];
  /** want `lines`: a file's hits stop after this many matching lines. */
  readonly capLines?: number;
  readonly capHits?: number;
  /** The file (an index into fds) a page resumes inside, and its last hit returned (ResultCap.after). */
  readonly after?: { readonly index: number; readonly line: number; readonly column: number };
}

const WORKER_SOURCE = `'use strict';
const { parentPort } = require('node:worker_threads');
const { readSync } = require('node:fs');
${stripTerminator.toString()}
${hasBom.toString()}
${literalHits.toString()}
${packHits.toString()}
${readInto.toString()}
let scratch = Buffer.allocUnsafeSlow(1 << 16);
/** The file from offset 0, at most size + 1 bytes; null when it holds more than size (it grew). */
function readFile(fd, size) {
  if (scratch.length < size + 1) scratch = Buffer.allocUnsafeSlow(size + 1);
  const b = readInto(fd, scratch.subarray(0, size + 1));
  return b.length > size ? null : b;
}
parentPort.on('message', (m) => {
  const needle = Buffer.from(m.needle);
  const answers = [];
  for (let k = 0; k < m.fds.length; k++) {
    let b;
    try {
      b = readFile(m.fds[k], m.sizes[k]);
    } catch {
      answers.push(null); // unreadable (EIO, …): not searched, as ripgrep skips it
      continue;
    }
    if (b === null || hasBom(b)) {
      answers.push('delegate');
    } else if (m.want === 'lines') {
      const hits = literalHits(b, needle, m.capLines ?? Infinity, m.capHits ?? Infinity, m.after !== undefined && m.after.index === k ? m.after : null);
      answers.push(hits.length > 0 ? { count: hits.length, packed: packHits(hits) } : null);
    } else {
      let count = 0;
      for (let i = b.indexOf(needle); i !== -1; i = m.want === 'paths' ? -1 : b.indexOf(needle, i + needle.length)) count++;
      answers.push(count > 0 ? { count, packed: null } : null);
    }
  }
  parentPort.postMessage({ id: m.id, answers });
});
`;

class ScanWorker {
  readonly #worker = new Worker(WORKER_SOURCE, { eval: true });
  readonly #pending = new Map<number, { resolve: (a: Answer[]) => void; reject: (e: unknown) => void }>();
  #failure: unknown = null;

  constructor() {
    // Referenced only while it has work: an idle pool keeps no process alive.
    this.#worker.unref();
    this.#worker.on('message', (m: { id: number; answers: Answer[] }) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) this.#worker.unref();
      p.resolve(m.answers);
    });
    this.#worker.on('error', (e) => this.#fail(e));
    this.#worker.on('exit', (code) => this.#fail(new Error(`the scan worker exited (${code})`)));
  }

  get failed(): boolean {
    return this.#failure !== null;
  }

  ask(r: Request): Promise<Answer[]> {
    if (this.#failure !== null) return Promise.reject(this.#failure as Error);
    return new Promise<Answer[]>((resolve, reject) => {
      if (this.#pending.size === 0) this.#worker.ref();
      this.#pending.set(r.id, { resolve, reject });
      this.#worker.postMessage(r);
    });
  }

  #fail(e: unknown): void {
    this.#failure ??= e;
    for (const p of this.#pending.values()) p.reject(e);
    this.#pending.clear();
  }

  terminate(): Promise<number> {
    return this.#worker.terminate();
  }
}

/** The worker threads of one fs.search tool, started on first use and ended by close(). */
export class ScanWorkers {
  readonly size: number;
  readonly #workers: (ScanWorker | null)[];
  #next = 0;
  #ids = 0;
  #closed = false;

  /** One worker a core beside this thread's, at least one, at most four. */
  constructor(size = Math.max(1, Math.min(4, availableParallelism() - 1))) {
    this.size = size;
    this.#workers = Array.from({ length: size }, () => null);
  }

  /** Answers for the files open at `fds` (whose sizes were `sizes` when opened), in order. */
  ask(needle: Uint8Array, want: ContentQuery['want'], fds: readonly number[], sizes: readonly number[], cap?: ResultCap, afterIndex = -1): Promise<Answer[]> {
    if (this.#closed) return Promise.reject(new ToolgateError('execution_failed', 'fs.search was disposed', {}));
    const i = this.#next++ % this.size;
    let w = this.#workers[i] ?? null;
    if (w === null || w.failed) {
      void w?.terminate();
      this.#workers[i] = w = new ScanWorker();
    }
    const after = cap?.after !== undefined && afterIndex >= 0 ? { after: { index: afterIndex, line: cap.after.line, column: cap.after.column } } : {};
    return w.ask({ id: ++this.#ids, needle, want, fds, sizes, ...(cap !== undefined ? { capLines: cap.lines, capHits: cap.hits, ...after } : {}) });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#workers.map((w) => w?.terminate()));
    this.#workers.fill(null);
  }
}

/**
 * Every file of `files` (in order), scanned on the pool's workers; `delegate` searches what
 * ripgrep must (in order) and its answer is merged in.
 */
export async function scanAll(
  files: readonly string[],
  q: ContentQuery,
  reader: FileReader,
  signal: AbortSignal,
  pool: ScanWorkers,
  delegate: (paths: readonly string[]) => Promise<SearchAnswer>,
  cap?: ResultCap,
  /** A turn of the event loop after each slice sent (tests count them). */
  pause: () => Promise<void> = nextTurn,
): Promise<SearchAnswer> {
  const needle = Buffer.from(q.pattern, 'utf8');
  const slices: Promise<{ found: FileHits[]; delegated: string[] }>[] = [];
  const tooLarge: string[] = [];
  let paths: string[] = [];
  let fds: number[] = [];
  let sizes: number[] = [];
  let bytes = 0;
  const send = (): void => {
    const p = paths;
    const f = fds;
    const slice = pool.ask(needle, q.want, f, sizes, cap, cap?.after !== undefined ? p.indexOf(cap.after.path) : -1).then(
      (answers) => {
        const found: FileHits[] = [];
        const delegated: string[] = [];
        answers.forEach((a, k) => {
          if (a === 'delegate') delegated.push(p[k] as string);
          else if (a !== null) {
            const hits = a.packed === null ? [] : unpackHits(a.packed);
            found.push({ path: p[k] as string, hits, count: a.count, ...(reachesCap(hits, cap) ? { capped: true } : {}) });
          }
        });
        return { found, delegated };
      },
      (e: unknown) => {
        throw e instanceof ToolgateError ? e : new ToolgateError('execution_failed', `fs.search's scan worker failed: ${String(e)}`, {}, { cause: e });
      },
    );
    // Closed once the worker has answered (or failed): it reads them until then.
    void slice.then(
      () => f.forEach((fd) => closeSync(fd)),
      () => f.forEach((fd) => closeSync(fd)),
    );
    slice.catch(() => undefined); // awaited below
    slices.push(slice);
    paths = [];
    fds = [];
    sizes = [];
    bytes = 0;
  };
  try {
    for (const path of files) {
      signal.throwIfAborted();
      const fd = reader.open(path);
      if (fd === null) continue; // gone, a link or not a regular file now: not searched
      const size = reader.openedSize(path) ?? Infinity;
      if (size > IN_PROCESS_MAX_BYTES) {
        closeSync(fd);
        tooLarge.push(path);
        continue;
      }
      paths.push(path);
      fds.push(fd);
      sizes.push(size);
      bytes += size;
      if (paths.length >= SLICE_FILES || bytes >= SLICE_BYTES) {
        send();
        // At most IN_FLIGHT_PER_WORKER slices a worker; the event loop runs between slices. A
        // slice the workers have answered already is a settled promise, whose await lets no
        // other work in (a microtask): opening 50,000 small files held the loop 90–117 ms so.
        const waitFor = slices[slices.length - 1 - pool.size * IN_FLIGHT_PER_WORKER];
        if (waitFor) await waitFor;
        await pause();
      }
    }
    if (paths.length > 0) send();
    const done = await Promise.all(slices);
    const found = done.flatMap((d) => d.found);
    const rest = tooLarge.concat(done.flatMap((d) => d.delegated)).sort(comparePaths);
    if (rest.length === 0) return { found, searched: files.length };
    return { found: mergeInOrder(found, (await delegate(rest)).found, (f) => f.path), searched: files.length };
  } finally {
    for (const fd of fds) closeSync(fd); // opened, not sent
    await Promise.allSettled(slices);
  }
}
