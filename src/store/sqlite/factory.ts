import type { StoreFactory } from '../types.js';
import { SqliteStore, type SqliteOptions } from './store.js';

/**
 * The embedded default store: one SQLite file (`toolgate.db`) in the runtime's state dir, with
 * zero setup. Durability, migrations and group commit are its own business:
 * `createRuntime({ workspace, store: sqliteStore({ durability: 'normal' }) })`.
 */
export function sqliteStore(opts: SqliteOptions = {}): StoreFactory {
  return async ({ stateDir }) => new SqliteStore({ ...opts, dir: stateDir });
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
