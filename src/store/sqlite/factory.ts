import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainReport, StoreFactory } from '../types.js';
import { SqliteStore, type SqliteOptions } from './store.js';

/**
 * The embedded default store: one SQLite file (`toolgate.db`) in the runtime's state dir, with
 * zero setup. Durability, migrations and group commit are its own business:
 * `createRuntime({ workspace, store: sqliteStore({ durability: 'normal' }) })`.
 */
export function sqliteStore(opts: SqliteOptions = {}): StoreFactory {
  return async ({ stateDir, onLedger }) => new SqliteStore({ ...opts, dir: stateDir, ...(onLedger ? { onLedger } : {}) });
}

/** Opens (and closes) a SQLite store in `dir`: what `toolgate doctor` checks. Throws when it cannot. */
export async function probeSqlite(dir: string): Promise<{ readonly journal_mode: string }> {
  const store = new SqliteStore({ dir });
  try {
    return { journal_mode: String(store.db.pragma('journal_mode', { simple: true })) };
  } finally {
    await store.close();
  }
}

/** What `toolgate doctor` finds in a state dir's database: absent, or SQLite's integrity check and the receipt chains. */
export type DatabaseHealth =
  | { readonly exists: false }
  | { readonly exists: true; readonly integrity: readonly string[]; readonly chain: ChainReport | { readonly unreadable: string } };

/**
 * Checks the state dir's `toolgate.db` without changing its data: `PRAGMA integrity_check`
 * (`['ok']` when sound) and the receipt hash chains (`audit verify`). Throws when the file
 * cannot be opened at all (not a database, damaged header).
 */
export async function checkDatabase(dir: string): Promise<DatabaseHealth> {
  if (!existsSync(join(dir, 'toolgate.db'))) return { exists: false };
  const store = new SqliteStore({ dir });
  try {
    const rows = store.db.pragma('integrity_check') as { integrity_check: string }[];
    const integrity = rows.map((r) => r.integrity_check);
    // A damaged file can also break the reads verifyChain makes; the integrity rows say why.
    const chain = await store.verifyChain().catch((e: unknown) => ({ unreadable: e instanceof Error ? e.message : String(e) }));
    return { exists: true, integrity, chain };
  } finally {
    await store.close();
  }
}
