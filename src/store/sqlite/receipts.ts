import type { Database, Statement } from 'better-sqlite3';
import { bodyOf, receiptDigest, receiptIdOf, unsealCanonical, type Digest, type Receipt, type ReceiptId, type TaskId } from '../../protocol/index.js';
import type { ChainReport } from '../types.js';

interface Row {
  seq: number;
  receipt_id: string;
  task_id: string;
  logical_effect_id: string | null;
  idempotency_key: string | null;
  tool: string;
  status: string;
  created_at: string;
  digest: string;
  prev_digest: string | null;
  body: string;
}

const ROW_COLUMNS = 'seq, receipt_id, task_id, logical_effect_id, idempotency_key, tool, status, created_at, digest, prev_digest, body';

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
    return row ? unsealCanonical(row.body, row.digest as Digest) : undefined;
  }

  list(filter: { task?: TaskId; limit?: number }): Receipt[] {
    const limit = filter.limit ?? 100;
    const rows = filter.task
      ? this.#db.prepare<[string, number], { body: string; digest: string }>(`SELECT body, digest FROM receipts WHERE task_id = ? ORDER BY seq DESC LIMIT ?`).all(filter.task, limit)
      : this.#db.prepare<[number], { body: string; digest: string }>(`SELECT body, digest FROM receipts ORDER BY seq DESC LIMIT ?`).all(limit);
    return rows.map((r) => unsealCanonical(r.body, r.digest as Digest));
  }

  /**
   * Walks each task's receipts in insertion order and recomputes everything from the stored
   * body: its digest, its id, the columns that index it, and the link to the previous receipt.
   */
  verify(task?: TaskId): ChainReport {
    const rows = task
      ? this.#db.prepare<[string], Row>(`SELECT ${ROW_COLUMNS} FROM receipts WHERE task_id = ? ORDER BY seq`).iterate(task)
      : this.#db.prepare<[], Row>(`SELECT ${ROW_COLUMNS} FROM receipts ORDER BY task_id, seq`).iterate();
    const heads = new Map<string, string | null>();
    const brokenTasks = new Set<string>();
    const broken: { task_id: string; seq: number; receipt_id: string; reason: string }[] = [];
    let count = 0;
    for (const row of rows) {
      count++;
      if (brokenTasks.has(row.task_id)) continue;
      const fail = (reason: string): void => {
        broken.push({ task_id: row.task_id, seq: row.seq, receipt_id: row.receipt_id, reason });
        brokenTasks.add(row.task_id);
      };
      const prev = heads.has(row.task_id) ? (heads.get(row.task_id) as string | null) : null;
      let receipt: Receipt;
      try {
        receipt = unsealCanonical(row.body, row.digest as Digest);
      } catch {
        fail('body is not JSON');
        continue;
      }
      const digest = receiptDigest(bodyOf(receipt));
      if (digest !== receipt.digest) fail('body does not match its digest');
      else if (digest !== row.digest) fail('digest column does not match the body');
      else if (receiptIdOf(digest) !== receipt.receipt_id || receipt.receipt_id !== row.receipt_id) fail('receipt id is not derived from its digest');
      else if (
        receipt.task_id !== row.task_id ||
        receipt.status !== row.status ||
        receipt.tool !== row.tool ||
        receipt.finished_at !== row.created_at ||
        receipt.logical_effect_id !== row.logical_effect_id ||
        receipt.idempotency_key !== row.idempotency_key
      )
        fail('an indexed column does not match the body');
      else if ((receipt.prev_receipt_digest ?? null) !== prev || (row.prev_digest ?? null) !== prev) fail('link to the previous receipt is broken');
      heads.set(row.task_id, row.digest);
    }
    // The task head must name the last receipt: a deleted tail shows here.
    const tasks = task
      ? this.#db.prepare<[string], { task_id: string; head_digest: string | null }>(`SELECT task_id, head_digest FROM tasks WHERE task_id = ?`).all(task)
      : this.#db.prepare<[], { task_id: string; head_digest: string | null }>(`SELECT task_id, head_digest FROM tasks`).all();
    for (const t of tasks) {
      if (brokenTasks.has(t.task_id)) continue;
      const last = heads.get(t.task_id) ?? null;
      if ((t.head_digest ?? null) !== last) {
        broken.push({ task_id: t.task_id, seq: -1, receipt_id: '', reason: 'task head does not name its last receipt (receipts removed?)' });
      }
    }
    return { ok: broken.length === 0, tasks: tasks.length, receipts: count, broken };
  }
}
