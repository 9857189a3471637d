import { Database } from './database.js';
import type { PostgresHealth } from './factory.js';
import { schemaVersions } from './migrations.js';
import { PgReceiptTable } from './receipts.js';
import { expectedSchema } from './schema-sets.js';

/** `probePostgres` (factory.ts), loaded with the driver only when a doctor asks. */
export async function probe(url: string, stateDir: string): Promise<PostgresHealth> {
  const db = new Database({ url, pool: 1, stateDir, applicationName: 'toolgate doctor' });
  try {
    const version = (await db.read<{ v: string }>('connect', `SELECT current_setting('server_version') AS v`)).rows[0]?.v ?? 'unknown';
    const schema = await schemaVersions(db);
    const expected = expectedSchema();
    const chain = schema['core'] === undefined ? null : await new PgReceiptTable(db).verify().catch((e: unknown) => ({ unreadable: e instanceof Error ? e.message : String(e) }));
    return { server_version: version, schema, expected, chain };
  } finally {
    await db.close().catch(() => undefined);
  }
}
