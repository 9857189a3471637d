import { Database } from './database.js';
import type { PostgresHealth } from './factory.js';
import { PG_CORE_MIGRATIONS, PG_POLICY_MIGRATIONS, schemaVersions } from './migrations.js';
import { PgReceiptTable } from './receipts.js';
import { PG_KEY_MIGRATIONS } from './keys.js';

/** `probePostgres` (factory.ts), loaded with the driver only when a doctor asks. */
export async function probe(url: string, stateDir: string): Promise<PostgresHealth> {
  const db = new Database({ url, pool: 1, stateDir, applicationName: 'toolgate doctor' });
  try {
    const version = (await db.read<{ v: string }>('connect', `SELECT current_setting('server_version') AS v`)).rows[0]?.v ?? 'unknown';
    const schema = await schemaVersions(db);
    const expected = { [PG_CORE_MIGRATIONS.name]: PG_CORE_MIGRATIONS.steps.length, [PG_POLICY_MIGRATIONS.name]: PG_POLICY_MIGRATIONS.steps.length, [PG_KEY_MIGRATIONS.name]: PG_KEY_MIGRATIONS.steps.length };
    const chain = schema['core'] === undefined ? null : await new PgReceiptTable(db).verify().catch((e: unknown) => ({ unreadable: e instanceof Error ? e.message : String(e) }));
    return { server_version: version, schema, expected, chain };
  } finally {
    await db.close().catch(() => undefined);
  }
}
