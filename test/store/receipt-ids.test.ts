// Receipt ids on a real store (docs/protocol.md#receipt): new receipts carry the start-time form,
// and a store written before it (ids of digest digits only) still reads, replays, undoes and
// verifies by those ids, on SQLite and on PostgreSQL. An id of neither form breaks the chain.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { legacyReceiptIdOf, receiptIdOf, type Receipt } from '../../src/protocol/index.js';
import { postgresStore, sqliteStore, type StoreFactory } from '../../src/store/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { freshDatabase } from '../support/postgres.js';
import { dropTriggers, pgSql, sqliteSql, type Sql } from './audit/tamper.js';

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`receipt ids on ${kind}`, () => {
    it('are the start-time form, and ids of the form before it keep working', async () => {
      const d = tempDirs('tg-receipt-ids');
      const db = kind === 'postgres' ? await freshDatabase() : null;
      const store = (): StoreFactory => (db === null ? sqliteStore() : postgresStore({ url: db.url, pool: 2 }));
      const open = (): Promise<Runtime> => createRuntime({ workspace: d.workspace, stateDir: d.state, store: store() });
      const sql = async (): Promise<Sql> => (db === null ? sqliteSql(join(d.state, 'toolgate.db')) : pgSql(db.url));
      try {
        writeFileSync(join(d.workspace, 'a.txt'), 'one\n');
        let rt = await open();
        const made: Receipt[] = [];
        for (let i = 0; i < 3; i++) made.push(await rt.call(envelope('fs.read', { path: 'a.txt' })));
        const write = await rt.call(envelope('fs.write', { path: 'a.txt', content: 'two\n', mode: 'create_or_replace' }, { idempotency_key: 'write-1' }));
        made.push(write);
        for (const r of made) {
          assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
          assert.equal(r.receipt_id, receiptIdOf(r.digest, r.started_at));
        }
        assert.deepEqual(made.map((r) => r.receipt_id).sort(), made.map((r) => r.receipt_id), 'in the order the calls started');
        await rt.close();

        // The store as the code before wrote it: the write's id is its digest's first 32 digits.
        const legacy = legacyReceiptIdOf(write.digest);
        let s = await sql();
        try {
          await dropTriggers(s, kind);
          await s.query('UPDATE receipts SET receipt_id = $1 WHERE receipt_id = $2', [legacy, write.receipt_id]);
          await s.query('UPDATE effects SET receipt_id = $1 WHERE receipt_id = $2', [legacy, write.receipt_id]);
        } finally {
          await s.close();
        }

        rt = await open();
        const got = await rt.getReceipt(legacy);
        assert.equal(got?.receipt_id, legacy);
        assert.equal(got?.digest, write.digest);
        assert.equal(await rt.getReceipt(write.receipt_id), undefined);
        assert.equal((await rt.store.listReceipts({ task: 'task-1' as never })).find((r) => r.digest === write.digest)?.receipt_id, legacy);
        const again = await rt.call(envelope('fs.write', { path: 'a.txt', content: 'two\n', mode: 'create_or_replace' }, { idempotency_key: 'write-1' }));
        assert.equal(again.replay, true);
        assert.equal(again.receipt_id, legacy);
        assert.deepEqual(await rt.store.verifyChain(), { ok: true, tasks: 1, receipts: 4, broken: [] });
        const undo = await rt.call(envelope('fs.undo', { receipt_id: legacy }));
        assert.equal(undo.status, 'succeeded', JSON.stringify(undo.error));
        assert.equal(readFileSync(join(d.workspace, 'a.txt'), 'utf8'), 'one\n');
        assert.equal(undo.receipt_id, receiptIdOf(undo.digest, undo.started_at));
        await rt.close();

        // An id of neither form: the chain check names the receipt.
        const forged = `${legacy.slice(0, -1)}${legacy.endsWith('0') ? '1' : '0'}`;
        s = await sql();
        try {
          await s.query('UPDATE receipts SET receipt_id = $1 WHERE receipt_id = $2', [forged, legacy]);
        } finally {
          await s.close();
        }
        rt = await open();
        const report = await rt.store.verifyChain();
        assert.equal(report.ok, false);
        assert.deepEqual(
          report.broken.map((b) => [b.receipt_id, b.reason]),
          [[forged, 'receipt id is not derived from its digest']],
        );
        await rt.close();
      } finally {
        await db?.drop();
        d.cleanup();
      }
    });
  });
}
