import type { Database, Statement } from 'better-sqlite3';
import { unsealCanonical, type Digest, type Receipt, type ReceiptId, type TaskId } from '../../protocol/index.js';
import { ChainCheck, RECEIPT_COLUMNS, type StoredReceiptRow } from '../chain-check.js';
import type { ChainReport } from '../types.js';

/**
 * Receipts as the event loop reads them: by id, by task, and the chain check. They are written
 * by the receipt writer (receipt-writer.ts, ReceiptChain): insert-only (triggers refuse UPDATE
 * and DELETE), hash-chained per task.
 */
export class ReceiptTable {
  readonly #db: Database;
  readonly #byId: Statement<[string], { body: string; digest: string }>;

  constructor(db: Database) {
    this.#db = db;
    this.#byId = db.prepare(`SELECT body, digest FROM receipts WHERE receipt_id = ?`);
  }

  get(id: ReceiptId): Receipt | undefined {
    const row = this.#byId.get(id);
    return row ? unsealCanonical(row.body, row.digest as Digest, id) : undefined;
  }

  list(filter: { task?: TaskId; limit?: number }): Receipt[] {
    const limit = filter.limit ?? 100;
    const rows = filter.task
      ? this.#db.prepare<[string, number], { body: string; digest: string; receipt_id: string }>(`SELECT body, digest, receipt_id FROM receipts WHERE task_id = ? ORDER BY seq DESC LIMIT ?`).all(filter.task, limit)
      : this.#db.prepare<[number], { body: string; digest: string; receipt_id: string }>(`SELECT body, digest, receipt_id FROM receipts ORDER BY seq DESC LIMIT ?`).all(limit);
    return rows.map((r) => unsealCanonical(r.body, r.digest as Digest, r.receipt_id));
  }

  /** The chain check (chain-check.ts, shared by every backend) over this file's receipts and task heads. */
  verify(task?: TaskId): ChainReport {
    const rows = task
      ? this.#db.prepare<[string], StoredReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM receipts WHERE task_id = ? ORDER BY seq`).iterate(task)
      : this.#db.prepare<[], StoredReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM receipts ORDER BY task_id, seq`).iterate();
    const check = new ChainCheck();
    for (const row of rows) check.add(row);
    const tasks = task
      ? this.#db.prepare<[string], { task_id: string; head_digest: string | null }>(`SELECT task_id, head_digest FROM tasks WHERE task_id = ?`).all(task)
      : this.#db.prepare<[], { task_id: string; head_digest: string | null }>(`SELECT task_id, head_digest FROM tasks`).all();
    return check.report(tasks);
  }
}
