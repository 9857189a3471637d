// Named secrets every host on this database shares (the continuation-token key, Store.sharedKey):
// a token signed on one host must verify on another. Created once; the first writer wins.
import { randomBytes } from 'node:crypto';
import type { Database } from './database.js';
import type { PostgresMigrationSet } from './migrations.js';

const KEY_BYTES = 32;

export const PG_KEY_MIGRATIONS: PostgresMigrationSet = {
  name: 'keys',
  steps: [
    `
    CREATE TABLE shared_keys (
      name TEXT PRIMARY KEY,
      key BYTEA NOT NULL CHECK (octet_length(key) = ${KEY_BYTES}),
      created_at TEXT NOT NULL
    );
    `,
  ],
};

/**
 * Inserts `adopt` (or fresh random bytes) unless a key of that name exists, then reads the one
 * stored. Two statements on purpose: under READ COMMITTED an `ON CONFLICT DO NOTHING` that waited
 * for another host's insert cannot see that row in its own snapshot; the SELECT after it can.
 */
export async function pgSharedKey(db: Database, name: string, adopt?: Buffer): Promise<Buffer> {
  const candidate = adopt?.length === KEY_BYTES ? adopt : randomBytes(KEY_BYTES);
  await db.query('store the shared key', 'INSERT INTO shared_keys (name, key, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [name, candidate, new Date().toISOString()]);
  const row = (await db.query<{ key: Buffer }>('load the shared key', 'SELECT key FROM shared_keys WHERE name = $1', [name])).rows[0];
  if (!row) throw new Error(`shared key ${name} vanished after it was written`);
  return row.key;
}
