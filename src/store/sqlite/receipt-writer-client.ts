import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Receipt } from '../../protocol/index.js';
import type { LedgerHead } from '../ledger.js';
import type { CommitRequest } from '../types.js';
import type { WriteAnswer, WriterData, WriteRequest } from './receipt-writer.js';

interface Pending {
  readonly reqs: CommitRequest[];
  /** A commit of the turn asked for the WAL's tail to be checkpointed first (store.ts #commitHere). */
  copyTail: boolean;
  readonly waiters: { resolve: (r: Receipt) => void; reject: (e: unknown) => void }[];
  /** Callers of sync() in this turn: answered after the batch's sync. */
  readonly syncs: { resolve: () => void; reject: (e: unknown) => void }[];
}

/**
 * The writer module, as this one is loaded: the built .js, or under tsx (tests, development) the
 * .ts source, in a worker that registers tsx first (a worker does not inherit `--import tsx`).
 */
function writerWorker(data: WriterData): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const entry = new URL(`./receipt-writer${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(entry, { workerData: data });
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(code, { eval: true, workerData: data });
}

/** The fewest commits of a turn that go to the writer before the turn ends (see commit). */
const SPLIT_AT_LEAST = 4;

/** A storage error from the writer (or a lone commit, store.ts), with its code (SQLITE_…, EIO, …) for storeFailure to type. */
export function writerError(code: string | null, message: string): Error {
  return Object.assign(new Error(message), code === null ? {} : { code });
}

/**
 * The event loop's side of the receipt writer (receipt-writer.ts). Commits asked for in one turn
 * of the event loop go to the writer as one message at the end of the turn; each resolves, with
 * the receipt as stored, once the writer's batch is committed and (durability `full`) synced.
 * The worker is started by `warm` (the store does when it opens) or on the first commit, holds
 * the process open only while commits are pending, and a worker that dies fails what it had.
 */
export class ReceiptWriterClient {
  readonly #data: WriterData;
  #worker: Worker | null = null;
  #failed: Error | null = null;
  #nextId = 1;
  #turn: Pending | null = null;
  readonly #sent = new Map<number, Pending>();
  /** Commits posted to the writer and not yet answered. */
  #outstanding = 0;
  #settled: (() => void)[] = [];
  readonly #stats = { receipts: 0, batches: 0, syncs: 0, here: 0 };
  #lastBatch = 0;

  /** Told the ledger head after each durable answer (the audit checkpoints, src/store/audit/). */
  readonly #onLedger: ((head: LedgerHead) => void) | undefined;

  constructor(data: WriterData, onLedger?: (head: LedgerHead) => void) {
    this.#data = data;
    this.#onLedger = onLedger;
  }

  /**
   * `copyTail`: the writer checkpoints before this commit, which then starts the WAL over (a lone
   * commit whose predecessors on the event loop left a checkpoint's tail, store.ts).
   */
  commit(req: CommitRequest, copyTail = false): Promise<Receipt> {
    if (this.#failed !== null) return Promise.reject(this.#failed);
    return new Promise((resolve, reject) => {
      if (this.#turn === null) {
        this.#turn = { reqs: [], waiters: [], syncs: [], copyTail: false };
        setImmediate(this.#send);
      }
      if (copyTail) this.#turn.copyTail = true;
      this.#turn.reqs.push(req);
      this.#turn.waiters.push({ resolve, reject });
      // The calls in flight tend to reach their commits together, in the turn that handled the
      // last batch's answers: waiting for the end of that turn would leave the writer idle
      // through it, and then the event loop idle through the writer's batch (a convoy). A turn's
      // commits go as soon as they are as many as the writer already has (at least
      // SPLIT_AT_LEAST), the rest at the end of the turn: the writer works while this thread
      // does (bench/call-overhead, docs/protocol.md#durability).
      const n = this.#turn.reqs.length;
      if (n >= SPLIT_AT_LEAST && n >= this.#outstanding) this.#send();
    });
  }

  /**
   * Starts the writer now, so that the first receipt or intent does not wait for the thread to
   * boot (tens of ms, more under tsx): a call's deadline covers that wait.
   */
  warm(): void {
    if (this.#failed !== null) return;
    try {
      this.#start();
    } catch (e) {
      this.#failed = e instanceof Error ? e : new Error(String(e));
    }
  }

  /**
   * Resolves once a sync of the WAL that started after this call has finished (durability
   * `full`; at once with `normal`): what was written on the main connection without its own
   * fsync is then durable. Joins the turn's batch like a commit.
   */
  sync(): Promise<void> {
    if (this.#data.durability === 'normal') return Promise.resolve();
    if (this.#failed !== null) return Promise.reject(this.#failed);
    return new Promise((resolve, reject) => {
      if (this.#turn === null) {
        this.#turn = { reqs: [], waiters: [], syncs: [], copyTail: false };
        setImmediate(this.#send);
      }
      this.#turn.syncs.push({ resolve, reject });
    });
  }

  /**
   * Nothing is queued for the writer or waiting on it, and it has not failed: the writer is out
   * of any transaction, so a commit on the event loop's connection cannot interleave with a batch.
   */
  get idleNow(): boolean {
    return this.#failed === null && this.#turn === null && this.#sent.size === 0;
  }

  /** A receipt committed on the event loop's connection (store.ts): counted, and its ledger head told, as the writer's are. */
  committedHere(head: LedgerHead, synced: boolean): void {
    this.#stats.receipts++;
    this.#stats.here++;
    this.#stats.batches++;
    if (synced) this.#stats.syncs++;
    this.#onLedger?.(head);
  }

  /**
   * The WAL is past the writer's checkpoint mark after a commit on the event loop's connection:
   * the writer checkpoints once it has no commit to answer (receipt-writer.ts).
   */
  checkpointSoon(): void {
    if (this.#failed === null) this.#worker?.postMessage('checkpoint');
  }

  /** A sync that failed on the event loop's connection fails every later commit too (as a failed sync poisons the writer). */
  poison(e: Error): void {
    this.#fail(e, []);
  }

  /** Resolves when no commit is pending (every receipt handed to the writer is answered). */
  idle(): Promise<void> {
    if (this.#turn === null && this.#sent.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settled.push(resolve));
  }

  readonly #send = (): void => {
    const turn = this.#turn;
    this.#turn = null;
    if (turn === null) return;
    let worker: Worker;
    try {
      worker = this.#start();
    } catch (e) {
      this.#fail(e instanceof Error ? e : new Error(String(e)), [turn]);
      return;
    }
    const id = this.#nextId++;
    this.#sent.set(id, turn);
    this.#outstanding += turn.reqs.length;
    worker.ref();
    worker.postMessage({ id, json: JSON.stringify(turn.reqs), sync: turn.syncs.length > 0, copyTail: turn.copyTail } satisfies WriteRequest);
  };

  #start(): Worker {
    if (this.#worker !== null) return this.#worker;
    const worker = writerWorker(this.#data);
    worker.unref();
    worker.on('message', (a: WriteAnswer) => this.#answer(a));
    worker.on('error', (e) => this.#fail(typeof (e as { code?: unknown }).code === 'string' ? e : writerError('EIO', `the receipt writer failed: ${e.message}`), [...this.#sent.values()]));
    worker.on('exit', (code) => {
      this.#worker = null;
      if (this.#sent.size > 0) this.#fail(writerError('EIO', `the receipt writer exited (code ${code}) with commits pending`), [...this.#sent.values()]);
    });
    this.#worker = worker;
    return worker;
  }

  /** Receipts answered, the batches (transactions) they took, the syncs, and how many of them were committed on the event loop: what group commit achieved. */
  stats(): { readonly receipts: number; readonly batches: number; readonly syncs: number; readonly here: number } {
    return { ...this.#stats };
  }

  #answer(a: WriteAnswer): void {
    const pending = this.#sent.get(a.id);
    if (pending === undefined) return;
    this.#sent.delete(a.id);
    this.#outstanding -= pending.reqs.length;
    this.#stats.receipts += a.results.length;
    if (a.batch !== this.#lastBatch) {
      this.#lastBatch = a.batch;
      this.#stats.batches++;
      if (a.synced) this.#stats.syncs++;
    }
    let ledger: LedgerHead | null = null;
    for (const r of a.results) if (r.ok && (ledger === null || r.sealed.ledger_pos > ledger.pos)) ledger = { pos: r.sealed.ledger_pos, head: r.sealed.ledger };
    if (ledger !== null) this.#onLedger?.(ledger);
    pending.reqs.forEach((req, i) => {
      const r = a.results[i];
      const w = pending.waiters[i];
      if (r === undefined || w === undefined) return;
      if (!r.ok) {
        w.reject(writerError(r.code, r.message));
        return;
      }
      const { receipt_id, digest, prev_receipt_digest } = r.sealed;
      w.resolve({ receipt_id, ...req.body, prev_receipt_digest, digest, replay: false } as Receipt);
    });
    for (const s of pending.syncs) {
      if (a.synced) s.resolve();
      else s.reject(writerError(a.syncError?.code ?? 'EIO', a.syncError?.message ?? 'the WAL was not synced'));
    }
    this.#quiet();
  }

  #fail(e: Error, pending: Pending[]): void {
    this.#failed = e;
    for (const p of pending) for (const w of [...p.waiters, ...p.syncs]) w.reject(e);
    this.#sent.clear();
    this.#outstanding = 0;
    this.#quiet();
  }

  #quiet(): void {
    if (this.#sent.size > 0 || this.#turn !== null) return;
    this.#worker?.unref();
    const settled = this.#settled;
    this.#settled = [];
    for (const s of settled) s();
  }

  /** Waits for pending commits, then stops the writer. */
  async close(): Promise<void> {
    await this.idle();
    const worker = this.#worker;
    if (worker === null) return;
    this.#worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Held open until it has closed its connection (an unref'd worker would let the process end first).
    worker.ref();
    worker.postMessage('close');
    await exited;
  }
}
