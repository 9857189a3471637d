import { LedgerCheck, type LedgerHead, type LedgerReport, type LedgerRow } from '../ledger.js';
import type { Database, Transaction } from './database.js';
import type { PostgresMigrationSet } from './migrations.js';

/** The ledger's columns and head row, as in SQLite (sqlite/ledger.ts). */
export const PG_LEDGER_MIGRATIONS: PostgresMigrationSet = {
  name: 'ledger',
  steps: [
    `
    ALTER TABLE receipts ADD COLUMN ledger_pos BIGINT;
    ALTER TABLE receipts ADD COLUMN ledger TEXT;
    CREATE UNIQUE INDEX receipts_by_ledger ON receipts(ledger_pos);
    CREATE TABLE audit_ledger (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      pos BIGINT NOT NULL,
      head TEXT
    );
    INSERT INTO audit_ledger (id, pos, head) VALUES (1, 0, NULL);
    `,
  ],
};

function headOf(row: { pos: string | number; head: string | null } | undefined): LedgerHead | null {
  return row && Number(row.pos) > 0 && row.head !== null ? { pos: Number(row.pos), head: row.head } : null;
}

/**
 * Locks the ledger's head row for the rest of a commit's transaction: commits of every host
 * take turns on it, so the positions they hand out follow the commit order. Taken after the
 * task heads (receipt-batch.ts), always in that order, so two batches never wait in a cycle.
 */
export async function lockLedger(tx: Transaction): Promise<{ pos: number; head: string | null }> {
  const row = (await tx.query<{ pos: string; head: string | null }>('SELECT pos, head FROM audit_ledger WHERE id = 1 FOR UPDATE')).rows[0];
  return { pos: Number(row?.pos ?? 0), head: row?.head ?? null };
}

/** Rows read per round trip while checking: the whole table never sits in memory at once. */
const PAGE = 1000;

export class PgLedger {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async head(): Promise<LedgerHead | null> {
    return headOf((await this.#db.read<{ pos: string; head: string | null }>('read the ledger', 'SELECT pos, head FROM audit_ledger WHERE id = 1')).rows[0]);
  }

  async at(pos: number): Promise<string | null> {
    return (await this.#db.read<{ ledger: string | null }>('read the ledger', 'SELECT ledger FROM receipts WHERE ledger_pos = $1', [pos])).rows[0]?.ledger ?? null;
  }

  /** One REPEATABLE READ snapshot, paged by position. */
  check(at: readonly number[] = []): Promise<LedgerReport & { readonly at: ReadonlyMap<number, string> }> {
    return this.#db.transaction(
      'check the ledger',
      async (tx) => {
        const check = new LedgerCheck(at);
        let after = 0;
        for (;;) {
          const rows = (await tx.query<LedgerRow>('SELECT ledger_pos, digest, ledger FROM receipts WHERE ledger_pos > $1 ORDER BY ledger_pos LIMIT $2', [after, PAGE])).rows;
          for (const row of rows) check.add(row);
          const last = rows[rows.length - 1];
          if (rows.length < PAGE || last === undefined) break;
          after = Number(last.ledger_pos);
        }
        const stored = headOf((await tx.query<{ pos: string; head: string | null }>('SELECT pos, head FROM audit_ledger WHERE id = 1')).rows[0]);
        return { ...check.report(stored), at: check.at };
      },
      { isolation: 'repeatable read', readOnly: true },
    );
  }
}
