// Group commit on PostgreSQL: every commit request that arrives while the previous batch is
// being written joins the next batch, one transaction (and one WAL flush, synchronous_commit on)
// for all of them; only then are its receipts answered. One batch at a time per store instance.
//
// The chain head of each task in a batch is locked (`SELECT … FOR UPDATE` on its tasks row,
// in task-id order so two batches never wait on each other in a cycle) before its receipts are
// sealed onto it: two hosts appending to one task take turns, so the chain never forks. The
// ledger's head row (ledger.ts) is locked next: every host's receipts get ledger positions in
// commit order.
import { failpoint, ToolgateError, type Digest, type Receipt } from '../../protocol/index.js';
import { sealLink } from '../chain-check.js';
import { ledgerStep, type LedgerHead } from '../ledger.js';
import type { CommitRequest } from '../types.js';
import type { Database, Transaction } from './database.js';
import { lockLedger } from './ledger.js';

interface Pending {
  readonly req: CommitRequest;
  readonly resolve: (r: Receipt) => void;
  readonly reject: (e: unknown) => void;
}

export class ReceiptBatcher {
  readonly #db: Database;
  #queue: Pending[] = [];
  #running: Promise<void> | null = null;
  #stats = { receipts: 0, batches: 0 };

  /** Told the ledger head after each committed batch (the audit checkpoints). */
  readonly #onLedger: ((head: LedgerHead) => void) | undefined;

  constructor(db: Database, onLedger?: (head: LedgerHead) => void) {
    this.#db = db;
    this.#onLedger = onLedger;
  }

  commit(req: CommitRequest): Promise<Receipt> {
    return new Promise<Receipt>((resolve, reject) => {
      this.#queue.push({ req, resolve, reject });
      // Requests of this turn (and of any turn while a batch is in flight) go in the next batch.
      this.#running ??= new Promise<void>((done) => setImmediate(done)).then(() => this.#drain());
    });
  }

  /** Resolves once nothing is queued or being written (close waits for it). */
  async idle(): Promise<void> {
    while (this.#running !== null) await this.#running;
  }

  stats(): { readonly receipts: number; readonly batches: number } {
    return { ...this.#stats };
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        await this.#write(batch);
      }
    } finally {
      this.#running = null;
    }
  }

  /**
   * One transaction for the batch. If the database refused one request (a defect of that
   * request), each is written alone, so one bad request fails alone. If the database or the
   * connection failed (`store_unavailable`), every request of the batch fails with it and none is
   * written again: a connection lost during COMMIT leaves the batch committed or not, and
   * sealing its bodies again onto a head that may have moved would chain a second receipt of
   * the same call.
   */
  async #write(batch: readonly Pending[]): Promise<void> {
    try {
      const { receipts, ledger } = await this.#append(batch.map((p) => p.req));
      // Committed, not yet answered: as SQLite's (its WAL written, not synced), the crash leaves
      // a receipt no caller heard of (issue 21's matrix).
      if (receipts.length > 0) failpoint('during_commit');
      if (ledger !== null) this.#onLedger?.(ledger);
      this.#stats.batches++;
      this.#stats.receipts += receipts.length;
      batch.forEach((p, i) => p.resolve(receipts[i] as Receipt));
    } catch (e) {
      if (batch.length === 1 || ToolgateError.isInstance(e)) {
        for (const p of batch) p.reject(e);
        return;
      }
      for (const p of batch) await this.#write([p]);
    }
  }

  #append(reqs: readonly CommitRequest[]): Promise<{ receipts: Receipt[]; ledger: LedgerHead | null }> {
    return this.#db.transaction('commit the receipt', async (tx) => {
      const heads = await lockHeads(tx, [...new Set(reqs.map((r) => r.body.task_id))]);
      const ledger = await lockLedger(tx);
      const counts = new Map<string, number>();
      const out: Receipt[] = [];
      for (const req of reqs) {
        const task = req.body.task_id;
        const { receipt, row } = sealLink(req.body, heads.get(task) ?? null);
        ledger.pos++;
        ledger.head = ledgerStep(ledger.head, row.digest);
        await tx.query(
          `INSERT INTO receipts (receipt_id, task_id, logical_effect_id, idempotency_key, tool, status, created_at, digest, prev_digest, body, ledger_pos, ledger)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [row.receipt_id, row.task_id, row.logical_effect_id, row.idempotency_key, row.tool, row.status, row.created_at, row.digest, row.prev_digest, row.body, ledger.pos, ledger.head],
        );
        heads.set(task, receipt.digest);
        counts.set(task, (counts.get(task) ?? 0) + 1);
        if (req.effect) {
          await tx.query(`UPDATE effects SET state = $1, receipt_id = $2, updated_at = $3 WHERE task_id = $4 AND effect_key = $5`, [
            req.effect.state,
            receipt.receipt_id,
            receipt.finished_at,
            task,
            req.effect.key,
          ]);
        }
        out.push(receipt);
      }
      for (const [task, n] of counts) {
        await tx.query(`UPDATE tasks SET head_digest = $1, receipt_count = receipt_count + $2 WHERE task_id = $3`, [heads.get(task), n, task]);
      }
      await tx.query('UPDATE audit_ledger SET pos = $1, head = $2 WHERE id = 1', [ledger.pos, ledger.head]);
      return { receipts: out, ledger: ledger.head === null ? null : { pos: ledger.pos, head: ledger.head } };
    });
  }
}

/** Makes each task's row if needed and locks it, in task-id order; returns each task's head. */
async function lockHeads(tx: Transaction, tasks: readonly string[]): Promise<Map<string, Digest | null>> {
  const sorted = [...tasks].sort();
  const now = new Date().toISOString();
  await tx.query(`INSERT INTO tasks (task_id, created_at) SELECT unnest($1::text[]), $2 ON CONFLICT (task_id) DO NOTHING`, [sorted, now]);
  const heads = new Map<string, Digest | null>();
  for (const task of sorted) {
    const row = (await tx.query<{ head_digest: string | null }>(`SELECT head_digest FROM tasks WHERE task_id = $1 FOR UPDATE`, [task])).rows[0];
    heads.set(task, (row?.head_digest ?? null) as Digest | null);
  }
  return heads;
}
