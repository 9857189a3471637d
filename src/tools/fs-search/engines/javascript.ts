// The engine used when ripgrep is not installed. Files are read here, beneath the root and
// without following links; matching runs in a worker thread that is terminated when the
// signal aborts, so a catastrophic pattern stops when its time is up, not merely the wait.
import { Worker } from 'node:worker_threads';
import { ToolgateError } from '../../../protocol/index.js';
import type { FileReader } from '../file-access.js';
import { SCAN_WORKER_SOURCE } from './javascript-scan.js';
import { unpackHits } from './literal-scan.js';
import type { ContentEngine, ContentQuery, FileHits, SearchAnswer } from './types.js';

/** Files larger than this are not searched by the fallback engine. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const MESSAGE_BYTES = 4 * 1024 * 1024;
/** ripgrep's syntax has neither lookaround nor backreferences; neither has this engine. */
const UNSUPPORTED = /\(\?<?[=!]|\\k<|\\[1-9]/;

interface Reply {
  readonly id: number;
  readonly results?: { readonly path: string; readonly count: number; readonly packed: { readonly texts: string[]; readonly at: Int32Array } }[];
  readonly error?: string;
}

export class JavaScriptEngine implements ContentEngine {
  readonly name = 'javascript' as const;
  #worker: Worker | null = null;
  #next = 0;

  async validate(q: ContentQuery): Promise<void> {
    if (q.kind !== 'regex') return;
    const bad = (message: string): ToolgateError =>
      new ToolgateError('invalid_arguments', `invalid regex: ${message}`, { faults: [{ pointer: '/query', message }], engine: 'javascript' });
    if (UNSUPPORTED.test(q.pattern)) throw bad('lookaround and backreferences are not supported');
    try {
      new RegExp(q.pattern, 'gu');
    } catch (e) {
      throw bad((e as Error).message);
    }
  }

  #ensureWorker(): Worker {
    if (!this.#worker) {
      this.#worker = new Worker(SCAN_WORKER_SOURCE, { eval: true });
      this.#worker.unref();
    }
    return this.#worker;
  }

  #ask(files: { path: string; data: Uint8Array }[], q: ContentQuery, signal: AbortSignal): Promise<FileHits[]> {
    const worker = this.#ensureWorker();
    const id = ++this.#next;
    return new Promise<FileHits[]>((resolve, reject) => {
      const done = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        signal.removeEventListener('abort', onAbort);
      };
      const onMessage = (m: Reply): void => {
        if (m.id !== id) return;
        done();
        if (m.error !== undefined) reject(new ToolgateError('invalid_arguments', `invalid regex: ${m.error}`, { faults: [{ pointer: '/query', message: m.error }], engine: 'javascript' }));
        else resolve((m.results ?? []).map((r) => ({ path: r.path, count: r.count, hits: unpackHits(r.packed) })));
      };
      const onError = (e: Error): void => {
        done();
        reject(e);
      };
      const onAbort = (): void => {
        done();
        // Stop the match itself, then report the abort.
        this.#worker = null;
        worker.terminate().then(
          () => reject(signal.reason),
          () => reject(signal.reason),
        );
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      signal.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ id, query: q, files }, files.map((f) => f.data.buffer as ArrayBuffer));
    });
  }

  /** Searches every file: `stopAfter` is a hint this engine does not need (it is not the first-page path). */
  async search(files: readonly string[], q: ContentQuery, reader: FileReader, signal: AbortSignal, _stopAfter?: number): Promise<SearchAnswer> {
    const out: FileHits[] = [];
    let batch: { path: string; data: Uint8Array }[] = [];
    let bytes = 0;
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const sent = batch;
      batch = [];
      bytes = 0;
      out.push(...(await this.#ask(sent, q, signal)));
    };
    for (const path of files) {
      signal.throwIfAborted();
      const data = reader.read(path, MAX_FILE_BYTES);
      if (data === null) continue;
      // A private copy: its buffer is transferred to the worker.
      const copy = new Uint8Array(data.length);
      copy.set(data);
      batch.push({ path, data: copy });
      bytes += data.length;
      if (bytes >= MESSAGE_BYTES) await flush();
    }
    await flush();
    return { found: out, searched: files.length };
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = null;
    if (w) await w.terminate();
  }
}
