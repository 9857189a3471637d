// A SQLite store over fresh dirs with a second connection to its file, for the tests of how the
// store writes (test/store/group-commit.test.ts, test/store/commit-here.test.ts).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';

/** `other` is read-only unless asked (a connection that takes the write lock itself). */
export async function withSecondConnection(prefix: string, opts: { readonly writable?: boolean }, run: (store: SqliteStore, other: Database.Database) => Promise<void>): Promise<void> {
  const d = tempDirs(prefix);
  const store = new SqliteStore({ dir: d.state });
  const other = new Database(join(d.state, 'toolgate.db'), { readonly: opts.writable !== true });
  try {
    await run(store, other);
  } finally {
    other.close();
    await store.close();
    d.cleanup();
  }
}

/** Receipts in the store's file, as the second connection reads them. */
export const receiptCount = (db: Database.Database): number => (db.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
