import type { ChainReport, StoreFactory } from '../types.js';
import { Database } from './database.js';
import { PG_CORE_MIGRATIONS, PG_POLICY_MIGRATIONS, schemaVersions } from './migrations.js';
import { PgReceiptTable } from './receipts.js';
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
  const db = new Database({ url, pool: 1, stateDir, applicationName: 'toolgate doctor' });
  try {
    const version = (await db.read<{ v: string }>('connect', `SELECT current_setting('server_version') AS v`)).rows[0]?.v ?? 'unknown';
    const schema = await schemaVersions(db);
    const expected = { [PG_CORE_MIGRATIONS.name]: PG_CORE_MIGRATIONS.steps.length, [PG_POLICY_MIGRATIONS.name]: PG_POLICY_MIGRATIONS.steps.length };
    const chain =
      schema['core'] === undefined ? null : await new PgReceiptTable(db).verify().catch((e: unknown) => ({ unreadable: e instanceof Error ? e.message : String(e) }));
    return { server_version: version, schema, expected, chain };
  } finally {
    await db.close().catch(() => undefined);
  }
}
