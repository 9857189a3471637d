import type { Database } from 'better-sqlite3';
import { LedgerCheck, type LedgerHead, type LedgerReport, type LedgerRow } from '../ledger.js';
import type { MigrationSet } from './migrations.js';

/**
 * The ledger's columns and head row (src/store/ledger.ts). Receipts written before this set have
 * no position: the ledger (and what a checkpoint can prove) starts with the first one after it.
 */
export const LEDGER_MIGRATIONS: MigrationSet = {
  name: 'ledger',
  steps: [
    `
    ALTER TABLE receipts ADD COLUMN ledger_pos INTEGER;
    ALTER TABLE receipts ADD COLUMN ledger TEXT;
    CREATE UNIQUE INDEX receipts_by_ledger ON receipts(ledger_pos);
    CREATE TABLE audit_ledger (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      pos INTEGER NOT NULL,
      head TEXT
    );
    INSERT INTO audit_ledger (id, pos, head) VALUES (1, 0, NULL);
    `,
  ],
};

function headOf(row: { pos: number; head: string | null } | undefined): LedgerHead | null {
  return row && row.pos > 0 && row.head !== null ? { pos: Number(row.pos), head: row.head } : null;
}

/** The ledger as the event loop reads it (writes are the receipt writer's, receipt-chain.ts). */
export class SqliteLedger {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  head(): LedgerHead | null {
    return headOf(this.#db.prepare<[], { pos: number; head: string | null }>(`SELECT pos, head FROM audit_ledger WHERE id = 1`).get());
  }

  at(pos: number): string | null {
    return this.#db.prepare<[number], { ledger: string | null }>(`SELECT ledger FROM receipts WHERE ledger_pos = ?`).get(pos)?.ledger ?? null;
  }

  /** One read transaction: the rows and the head row are of the same moment. */
  check(at: readonly number[] = []): LedgerReport & { readonly at: ReadonlyMap<number, string> } {
    return this.#db.transaction(() => {
      const check = new LedgerCheck(at);
      for (const row of this.#db.prepare<[], LedgerRow>(`SELECT ledger_pos, digest, ledger FROM receipts WHERE ledger_pos IS NOT NULL ORDER BY ledger_pos`).iterate()) check.add(row);
      return { ...check.report(this.head()), at: check.at };
    }).deferred();
  }
}
