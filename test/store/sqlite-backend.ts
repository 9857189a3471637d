// The SQLite store as a conformance backend: a fresh state dir per test; tampering through the
// file directly (the receipts' triggers guard it, and an attacker drops them).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteStore, type Store } from '../../src/store/index.js';
import type { ConformanceBackend } from './conformance/index.js';

export function open(ref: string): Promise<Store> {
  return sqliteStore()({ stateDir: ref });
}

function tamper(ref: string, id: string, how: 'alter' | 'delete', guarded: boolean): boolean {
  const db = new Database(join(ref, 'toolgate.db'));
  try {
    if (!guarded) db.exec(how === 'alter' ? 'DROP TRIGGER IF EXISTS receipts_immutable_update' : 'DROP TRIGGER IF EXISTS receipts_immutable_delete');
    try {
      if (how === 'delete') return db.prepare('DELETE FROM receipts WHERE receipt_id = ?').run(id).changes === 1;
      const row = db.prepare<[string], { body: string }>('SELECT body FROM receipts WHERE receipt_id = ?').get(id);
      const forged = { ...(JSON.parse(row?.body ?? '{}') as Record<string, unknown>), result: { forged: true } };
      return db.prepare('UPDATE receipts SET body = ? WHERE receipt_id = ?').run(JSON.stringify(forged), id).changes === 1;
    } catch (e) {
      if (guarded && /immutable/.test((e as Error).message)) return false;
      throw e;
    }
  } finally {
    db.close();
  }
}

export const sqliteBackend: ConformanceBackend = {
  fresh: async () => mkdtempSync(join(tmpdir(), 'tg-conformance-')),
  open,
  drop: async (ref) => rmSync(ref, { recursive: true, force: true }),
  module: join(import.meta.dirname, 'sqlite-backend.ts'),
  tamper: async (ref, id, how, guarded) => tamper(ref, id, how, guarded),
};
