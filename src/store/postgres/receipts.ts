import { unsealCanonical, type Digest, type Receipt, type ReceiptId, type TaskId } from '../../protocol/index.js';
import { ChainCheck, RECEIPT_COLUMNS, type StoredReceiptRow } from '../chain-check.js';
import type { ChainReport } from '../types.js';
import type { Database } from './database.js';

/** Rows read per round trip while verifying: the whole table never sits in memory at once. */
const PAGE = 1000;

/**
 * Receipts as a PostgreSQL store reads them: by id, by task, and the chain check. Every read sees
 * only committed receipts, and a commit is durable before it is visible (synchronous_commit on).
 * They are written by the group commit (receipt-batch.ts): insert-only (a trigger refuses UPDATE,
 * DELETE and TRUNCATE), hash-chained per task.
 */
export class PgReceiptTable {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async get(id: ReceiptId): Promise<Receipt | undefined> {
    const row = (await this.#db.read<{ body: string; digest: string }>('read the receipt', 'SELECT body, digest FROM receipts WHERE receipt_id = $1', [id])).rows[0];
    return row ? unsealCanonical(row.body, row.digest as Digest, id) : undefined;
  }

  async list(filter: { task?: TaskId; limit?: number }): Promise<Receipt[]> {
    const limit = filter.limit ?? 100;
    const rows = filter.task
      ? await this.#db.read<{ body: string; digest: string; receipt_id: string }>('list receipts', 'SELECT body, digest, receipt_id FROM receipts WHERE task_id = $1 ORDER BY seq DESC LIMIT $2', [filter.task, limit])
      : await this.#db.read<{ body: string; digest: string; receipt_id: string }>('list receipts', 'SELECT body, digest, receipt_id FROM receipts ORDER BY seq DESC LIMIT $1', [limit]);
    return rows.rows.map((r) => unsealCanonical(r.body, r.digest as Digest, r.receipt_id));
  }

  /**
   * The chain check (chain-check.ts, shared with SQLite) over one snapshot (REPEATABLE READ):
   * receipts committed by other hosts during the walk are not half-seen. Paged by (task, seq).
   */
  verify(task?: TaskId): Promise<ChainReport> {
    return this.#db.transaction(
      'verify the receipt chain',
      async (tx) => {
        const check = new ChainCheck();
        let after: { task_id: string; seq: number } | null = null;
        for (;;) {
          const where: string[] = [];
          const args: unknown[] = [];
          if (task) {
            args.push(task);
            where.push(`task_id = $${args.length}`);
          }
          if (after) {
            args.push(after.task_id, after.seq);
            where.push(`(task_id, seq) > ($${args.length - 1}, $${args.length})`);
          }
          args.push(PAGE);
          const sql = `SELECT ${RECEIPT_COLUMNS} FROM receipts ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY task_id, seq LIMIT $${args.length}`;
          const rows = (await tx.query<StoredReceiptRow>(sql, args)).rows;
          for (const row of rows) check.add(row);
          const last = rows[rows.length - 1];
          if (rows.length < PAGE || last === undefined) break;
          after = { task_id: last.task_id, seq: last.seq };
        }
        const tasks = task
          ? await tx.query<{ task_id: string; head_digest: string | null }>('SELECT task_id, head_digest FROM tasks WHERE task_id = $1', [task])
          : await tx.query<{ task_id: string; head_digest: string | null }>('SELECT task_id, head_digest FROM tasks');
        return check.report(tasks.rows);
      },
      { isolation: 'repeatable read', readOnly: true },
    );
  }
}
