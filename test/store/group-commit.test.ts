// Group commit is the SQLite store's own business (src/store/sqlite/receipts.ts): a lone commit is
// written at once; commits later in the same turn of the event loop share one transaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { bodyOf, freshTask } from './conformance/fixtures.js';

test('the first commit of a turn is written before commit() returns; later ones of the turn are written together at its end', async () => {
  const d = tempDirs('tg-group');
  const store = new SqliteStore({ dir: d.state });
  const reader = new Database(join(d.state, 'toolgate.db'), { readonly: true });
  const count = (): number => (reader.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
  try {
    const task = freshTask();
    const first = store.commit({ body: bodyOf(task) });
    assert.equal(count(), 1, 'a lone commit does not wait for a batch');
    const rest = [store.commit({ body: bodyOf(task) }), store.commit({ body: bodyOf(task) })];
    assert.equal(count(), 1, 'the others of this turn wait for its end');
    const receipts = await Promise.all([first, ...rest]);
    assert.equal(count(), 3);
    assert.deepEqual(receipts.slice(1).map((r) => r.prev_receipt_digest), receipts.slice(0, 2).map((r) => r.digest));
    await new Promise((r) => setImmediate(r));
    const next = store.commit({ body: bodyOf(task) });
    assert.equal(count(), 4, 'the first commit of the next turn is written at once again');
    await next;
    assert.equal((await store.verifyChain(task)).ok, true);
  } finally {
    reader.close();
    await store.close();
    d.cleanup();
  }
});
