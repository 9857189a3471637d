// The PostgreSQL store as a conformance backend: a fresh database per test on the run's private
// cluster (test/support/postgres.ts); tampering through a direct connection. The receipts'
// trigger guards them; an attacker with a superuser session switches triggers off for it
// (session_replication_role = replica), which is what `guarded: false` does.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresStore, type Store } from '../../src/store/index.js';
import { freshDatabase } from '../support/postgres.js';
import type { ConformanceBackend } from './conformance/index.js';

const databases = new Map<string, () => Promise<void>>();

export function open(ref: string): Promise<Store> {
  return postgresStore({ url: ref, pool: 4 })({ stateDir: join(tmpdir(), 'toolgate-pg-conformance') });
}

/** Runs `run` on a direct connection to the database at `url`. */
export async function direct<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await run(c);
  } finally {
    await c.end();
  }
}

async function tamper(url: string, id: string, how: 'alter' | 'delete', guarded: boolean): Promise<boolean> {
  return direct(url, async (c) => {
    if (!guarded) await c.query(`SET session_replication_role = replica`);
    try {
      if (how === 'delete') return (await c.query('DELETE FROM receipts WHERE receipt_id = $1', [id])).rowCount === 1;
      const row = (await c.query<{ body: string }>('SELECT body FROM receipts WHERE receipt_id = $1', [id])).rows[0];
      const forged = { ...(JSON.parse(row?.body ?? '{}') as Record<string, unknown>), result: { forged: true } };
      return (await c.query('UPDATE receipts SET body = $1 WHERE receipt_id = $2', [JSON.stringify(forged), id])).rowCount === 1;
    } catch (e) {
      if (guarded && e instanceof pg.DatabaseError && /immutable/.test(e.message)) return false;
      throw e;
    }
  });
}

export const postgresBackend: ConformanceBackend = {
  fresh: async () => {
    const db = await freshDatabase();
    databases.set(db.url, db.drop);
    return db.url;
  },
  open,
  drop: async (ref) => {
    await databases.get(ref)?.();
    databases.delete(ref);
  },
  module: join(import.meta.dirname, 'postgres-backend.ts'),
  tamper,
};
