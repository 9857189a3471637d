// ripgrep: Rust's regex crate (finite automata, linear in the input: no pattern can make it
// backtrack), searching the files we list, in parallel. We sort its answer ourselves.
import { availableParallelism } from 'node:os';
import { ToolgateError } from '../../../protocol/index.js';
import type { FileReader } from '../file-access.js';
import { RecordSplitter, runChild } from '../child.js';
import { comparePaths } from '../order.js';
import { stripTerminator, type ContentEngine, type ContentQuery, type FileHits, type LineHit, type SearchAnswer } from './types.js';

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

function textOf(t: RgText): string {
  return t.text ?? Buffer.from(t.bytes ?? '', 'base64').toString('utf8');
}

function baseArgs(q: ContentQuery): string[] {
  const args = ['--no-config', '--no-ignore', '--hidden', '--no-messages', '--text', '--color', 'never'];
  if (q.kind === 'literal') args.push('--fixed-strings');
  args.push(q.caseSensitive ? '--case-sensitive' : '--ignore-case');
  return args;
}

/** Fewest files worth a ripgrep run of their own when a first batch is split. */
const MIN_PART = 128;

export class RipgrepEngine implements ContentEngine {
  readonly name = 'ripgrep' as const;
  readonly #rg: string;
  readonly #root: string;
  readonly #parallelism: number;

  constructor(rg: string, root: string, parallelism = availableParallelism()) {
    this.#rg = rg;
    this.#root = root;
    this.#parallelism = parallelism;
  }

  async validate(q: ContentQuery, signal: AbortSignal): Promise<void> {
    if (q.kind !== 'regex') return;
    // An empty input: rg compiles the pattern and exits 1 (no match) or 2 (it rejected it).
    const r = await runChild(this.#rg, [...baseArgs(q), '--regexp', q.pattern, '-'], { cwd: this.#root, signal, onStdout: () => {} });
    signal.throwIfAborted();
    if (r.code === 2) {
      throw new ToolgateError('invalid_arguments', `invalid regex: ${r.stderr.trim()}`, { pointer: '/query', engine: 'ripgrep', message: r.stderr.trim() });
    }
  }

  async search(files: readonly string[], q: ContentQuery, _reader: FileReader, signal: AbortSignal, stopAfter?: number): Promise<SearchAnswer> {
    if (stopAfter === undefined || q.want !== 'lines' || files.length < 2 * MIN_PART) return this.#run(files, q, signal, stopAfter);
    // Stopping early needs one thread reading in order; one such run per core, on consecutive
    // parts, keeps the cores busy. Parts are taken in order: once one stops early, the later
    // ones are not needed and are killed.
    const parts = Math.max(1, Math.min(this.#parallelism, Math.floor(files.length / MIN_PART)));
    const size = Math.ceil(files.length / parts);
    const stop = new AbortController();
    const both = AbortSignal.any([signal, stop.signal]);
    const runs = Array.from({ length: parts }, (_, k) => this.#run(files.slice(k * size, (k + 1) * size), q, both, stopAfter));
    const found: FileHits[] = [];
    let searched = 0;
    let total = 0;
    try {
      for (let k = 0; k < parts; k++) {
        const r = await (runs[k] as Promise<SearchAnswer>);
        found.push(...r.found);
        searched += r.searched;
        for (const f of r.found) total += f.count;
        const partLength = Math.min(size, files.length - k * size);
        if (r.searched < partLength || total >= stopAfter) break;
      }
    } finally {
      stop.abort();
      await Promise.allSettled(runs);
    }
    return { found, searched };
  }

  async #run(files: readonly string[], q: ContentQuery, signal: AbortSignal, stopAfter: number | undefined): Promise<SearchAnswer> {
    if (files.length === 0) return { found: [], searched: 0 };
    // To stop early, one thread searches the files in the order given, so that everything
    // before a file's `end` message is complete; otherwise ripgrep spreads them over threads.
    const early = stopAfter !== undefined && q.want === 'lines';
    const args = [...baseArgs(q), '--with-filename', ...(early ? ['--threads', '1'] : [])];
    if (q.want === 'lines') args.push('--json');
    else if (q.want === 'counts') args.push('--count-matches', '--null');
    else args.push('--files-with-matches', '--null');
    args.push('--regexp', q.pattern, '--', ...files);

    const byPath = new Map<string, { hits: LineHit[]; count: number }>();
    const entry = (path: string): { hits: LineHit[]; count: number } => {
      let e = byPath.get(path);
      if (!e) byPath.set(path, (e = { hits: [], count: 0 }));
      return e;
    };
    let total = 0;
    let searched = files.length;
    const index = early ? new Map(files.map((f, i) => [f, i])) : null;
    const onRecord = (rec: Buffer): boolean | void => {
      if (q.want === 'lines') {
        if (rec.length === 0 || rec[0] !== 0x7b) return;
        if (index !== null && stopAfter !== undefined && total >= stopAfter && rec.includes('"type":"end"')) {
          const end = JSON.parse(rec.toString('utf8')) as { type: string; data: { path: RgText } };
          const at = end.type === 'end' ? index.get(textOf(end.data.path)) : undefined;
          if (at !== undefined) {
            searched = at + 1;
            return false;
          }
        }
        if (!rec.includes('"type":"match"')) return;
        const m = JSON.parse(rec.toString('utf8')) as RgMatch;
        if (m.type !== 'match') return;
        const e = entry(textOf(m.data.path));
        const text = stripTerminator(textOf(m.data.lines));
        for (const s of m.data.submatches) {
          if (s.end === s.start) continue; // an empty match points at nothing
          e.hits.push({ line: m.data.line_number, column: s.start + 1, end_column: s.end + 1, text });
          e.count++;
          total++;
        }
      } else if (q.want === 'counts') {
        const nul = rec.indexOf(0);
        if (nul === -1) return;
        entry(rec.toString('utf8', 0, nul)).count += Number(rec.toString('utf8', nul + 1));
      } else if (rec.length) {
        entry(rec.toString('utf8')).count = 1;
      }
    };
    const splitter = new RecordSplitter(q.want === 'paths' ? 0 : 10);
    let stopped = false;
    const r = await runChild(this.#rg, args, {
      cwd: this.#root,
      signal,
      onStdout: (chunk) => {
        if (stopped) return false;
        stopped = !splitter.push(chunk, onRecord);
        return !stopped;
      },
    });
    signal.throwIfAborted();
    if (!stopped) {
      const last = splitter.flush();
      if (last) onRecord(last);
    }
    // 0: matches, 1: none, 2: some file could not be read (vanished since it was listed).
    if (!stopped && r.code !== 0 && r.code !== 1 && r.code !== 2) {
      throw new ToolgateError('execution_failed', `ripgrep ended with ${r.code ?? r.signal}: ${r.stderr.trim()}`, { engine: 'ripgrep' });
    }
    const out: FileHits[] = [];
    for (const [path, e] of byPath) {
      if (e.count === 0) continue;
      // A file after the stop point was only partly read.
      if (index !== null && (index.get(path) ?? files.length) >= searched) continue;
      e.hits.sort((a, b) => a.line - b.line || a.column - b.column);
      out.push({ path, hits: e.hits, count: e.count });
    }
    return { found: out.sort((a, b) => comparePaths(a.path, b.path)), searched };
  }

  async close(): Promise<void> {}
}
