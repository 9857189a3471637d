// Group commit is the SQLite store's own business (src/store/sqlite/receipts.ts): a lone commit is
// written at once; while several calls commit, the commits of a turn share one transaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { bodyOf, freshTask } from './conformance/fixtures.js';

const nextTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('a lone commit is written before commit() returns; concurrent ones are written together at the end of their turn', async () => {
  const d = tempDirs('tg-group');
  const store = new SqliteStore({ dir: d.state });
  const reader = new Database(join(d.state, 'toolgate.db'), { readonly: true });
  const count = (): number => (reader.prepare('SELECT count(*) AS n FROM receipts').get() as { n: number }).n;
  const task = freshTask();
  const pending: Promise<unknown>[] = [];
  const commit = (): Promise<unknown> => {
    const p = store.commit({ body: bodyOf(task) });
    pending.push(p);
    return p;
  };
  try {
    await commit();
    assert.equal(count(), 1, 'alone: no wait for a batch');
    await nextTurn();
    void commit();
    assert.equal(count(), 2, 'alone again, in a later turn: at once');
    void commit();
    void commit();
    assert.equal(count(), 2, 'the others of this turn wait for its end');
    await Promise.all(pending);
    assert.equal(count(), 4, 'written together');
    // Right after concurrent commits, a commit joins the batch of its turn (at most that long a
    // wait) until a few turns in a row had no other commit.
    const before = count();
    for (let i = 1; i <= 3; i++) {
      void commit();
      assert.equal(count(), before + i - 1, `turn ${i} after the batch: written at the end of the turn`);
      await Promise.all(pending);
    }
    void commit();
    assert.equal(count(), before + 4, 'then alone again: at once');
    await Promise.all(pending);
    assert.equal((await store.verifyChain(task)).ok, true);
  } finally {
    await Promise.allSettled(pending);
    reader.close();
    await store.close();
    d.cleanup();
  }
});
