import type { ChainReport, StoreFactory } from '../types.js';
import type { PostgresOptions } from './store.js';

// The driver (pg) and the store are loaded when a PostgreSQL store is opened, not when the
// package is imported: a SQLite-only runtime does not pay for them (about 35 ms of a ~260 ms
// cold import of `toolgate`, measured on a 2-core machine).

/**
 * The store several hosts share: one PostgreSQL database.
 * `createRuntime({ workspace, store: postgresStore({ url: 'postgres://…' }) })`. The schema is
 * created or brought up to date at open; the runtime's state dir keeps only what is local to
 * the host (artifacts, the sandbox's files).
 */
export function postgresStore(options: PostgresOptions): StoreFactory {
  return async ({ stateDir, onLedger }) => {
    const { PostgresStore } = await import('./store.js');
    return PostgresStore.open({ ...options, stateDir, ...(onLedger ? { onLedger } : {}) });
  };
}

/** What `toolgate doctor` finds in a PostgreSQL store. */
export interface PostgresHealth {
  readonly server_version: string;
  /** The schema versions the database holds (empty: not created yet, the first run creates it). */
  readonly schema: Readonly<Record<string, number>>;
  /** The versions this Toolgate migrates to. */
  readonly expected: Readonly<Record<string, number>>;
  /** The receipt chains (`audit verify`), when the schema is there; or why they cannot be read. */
  readonly chain: ChainReport | { readonly unreadable: string } | null;
}

/**
 * Connects and checks without changing anything: the server version, the schema versions, and
 * the receipt chains. Throws `store_unavailable` when the database cannot be reached.
 */
export async function probePostgres(url: string, stateDir: string): Promise<PostgresHealth> {
  const { probe } = await import('./probe.js');
  return probe(url, stateDir);
}
