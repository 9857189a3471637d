// Group commit is the SQLite store's own business (src/store/sqlite/receipt-writer*.ts): the
// receipts asked for in one turn of the event loop go to the writer thread together and are
// written in one transaction and covered by one WAL sync; a lone commit is answered on its own
// batch; a commit resolves only once its row is written (and, durability full, synced).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { bodyOf, freshTask } from './conformance/fixtures.js';

test('one turn of commits is one writer batch and one sync; lone commits are their own; each resolves once written', async () => {
  const d = tempDirs('tg-group');
  const store = new SqliteStore({ dir: d.state });
  const reader = new Database(join(d.state, 'toolgate.db'), { readonly: true });
  const count = (): number => (reader.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
  const task = freshTask();
  try {
    const first = await store.commit({ body: bodyOf(task) });
    assert.equal(count(), 1, 'written before the commit resolved');
    assert.equal((await store.getReceipt(first.receipt_id))?.digest, first.digest);
    for (let i = 0; i < 3; i++) await store.commit({ body: bodyOf(task) });
    assert.deepEqual(store.writerStats(), { receipts: 4, batches: 4, syncs: 4 }, 'a lone commit waits for no other');

    // Sixteen commits asked for in one turn: one batch, one sync, sixteen receipts chained in order.
    const turn = await Promise.all(Array.from({ length: 16 }, () => store.commit({ body: bodyOf(task) })));
    assert.equal(count(), 20);
    assert.deepEqual(store.writerStats(), { receipts: 20, batches: 5, syncs: 5 });
    for (let i = 1; i < turn.length; i++) assert.equal(turn[i]?.prev_receipt_digest, turn[i - 1]?.digest, 'chained in the order asked');
    assert.equal((await store.verifyChain(task)).ok, true);
  } finally {
    reader.close();
    await store.close();
    d.cleanup();
  }
});

test('durability normal: the writer batches the same and syncs nothing', async () => {
  const d = tempDirs('tg-group-normal');
  const store = new SqliteStore({ dir: d.state, durability: 'normal' });
  try {
    const task = freshTask();
    await Promise.all(Array.from({ length: 8 }, () => store.commit({ body: bodyOf(task) })));
    assert.deepEqual(store.writerStats(), { receipts: 8, batches: 1, syncs: 0 });
  } finally {
    await store.close();
    d.cleanup();
  }
});
