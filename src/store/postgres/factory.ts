import type { StoreFactory } from '../types.js';
import { Database } from './database.js';
import { schemaVersions } from './migrations.js';
import { PostgresStore, type PostgresOptions } from './store.js';

/**
 * The store several hosts share: one PostgreSQL database.
 * `createRuntime({ workspace, store: postgresStore({ url: 'postgres://…' }) })`. The schema is
 * created or brought up to date at open; the runtime's state dir keeps only what is local to
 * the host (artifacts, the sandbox's files).
 */
export function postgresStore(options: PostgresOptions): StoreFactory {
  return async ({ stateDir }) => PostgresStore.open({ ...options, stateDir });
}

/** What `toolgate doctor` finds in a PostgreSQL store: the server and the schema versions it holds (empty: not created yet). */
export interface PostgresHealth {
  readonly server_version: string;
  readonly schema: Readonly<Record<string, number>>;
}

/** Connects without changing anything: the server version and the schema versions. Throws `store_unavailable` when it cannot. */
export async function probePostgres(url: string, stateDir: string): Promise<PostgresHealth> {
  const db = new Database({ url, pool: 1, stateDir, applicationName: 'toolgate doctor' });
  try {
    const version = (await db.query<{ v: string }>('connect', 'SHOW server_version')).rows[0]?.v ?? 'unknown';
    return { server_version: version, schema: await schemaVersions(db) };
  } finally {
    await db.close().catch(() => undefined);
  }
}
