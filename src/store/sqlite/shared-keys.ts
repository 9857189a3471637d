// Named secrets every runtime on this database shares (the continuation-token key): a token
// signed by one runtime must verify on another. Created once; the first writer wins.
import { randomBytes } from 'node:crypto';
import type { Database, Statement } from 'better-sqlite3';
import type { MigrationSet } from './migrations.js';

export const SHARED_KEY_BYTES = 32;

export const KEY_MIGRATIONS: MigrationSet = {
  name: 'keys',
  steps: [
    `
    CREATE TABLE shared_keys (
      name TEXT PRIMARY KEY,
      key BLOB NOT NULL CHECK (length(key) = ${SHARED_KEY_BYTES}),
      created_at TEXT NOT NULL
    );
    `,
  ],
};

export class SqliteSharedKeys {
  readonly #insert: Statement<[string, Buffer, string]>;
  readonly #select: Statement<[string], { key: Buffer }>;

  constructor(db: Database) {
    this.#insert = db.prepare(`INSERT INTO shared_keys (name, key, created_at) VALUES (?, ?, ?) ON CONFLICT(name) DO NOTHING`);
    this.#select = db.prepare(`SELECT key FROM shared_keys WHERE name = ?`);
  }

  /** Inserts `adopt` (or fresh random bytes) unless a key of that name exists, then reads the one stored. */
  getOrCreate(name: string, adopt?: Buffer): Buffer {
    const candidate = adopt?.length === SHARED_KEY_BYTES ? adopt : randomBytes(SHARED_KEY_BYTES);
    this.#insert.run(name, candidate, new Date().toISOString());
    const row = this.#select.get(name);
    if (!row) throw new Error(`shared key ${name} vanished after it was written`);
    return Buffer.from(row.key);
  }
}
