// Group commit is the SQLite store's own business (src/store/sqlite/receipt-writer*.ts): the
// receipts asked for in one turn of the event loop go to the writer thread in at most a few
// messages (the first ones before the turn ends, so that the writer works meanwhile), each
// batch of the writer is one transaction covered by one WAL sync; a lone commit is answered on
// its own batch; a commit resolves only once its row is written (and, durability full, synced).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { receiptCount, withSecondConnection } from './sqlite-support.js';
import { tempDirs } from '../support/fixtures.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { bodyOf, freshTask } from './conformance/fixtures.js';
import type { TaskId } from '../../src/protocol/index.js';

/** A store over fresh dirs and a second, read-only connection that counts what the writer wrote. */
const withWatchedStore = (prefix: string, run: (store: SqliteStore, count: () => number) => Promise<void>): Promise<void> =>
  withSecondConnection(prefix, {}, (store, reader) => run(store, () => receiptCount(reader)));

test('one turn of commits takes at most three writer batches, each one sync; lone commits are their own; each resolves once written', async () => {
  await withWatchedStore('tg-group', async (store, count) => {
    const task = freshTask();
    const first = await store.commit({ body: bodyOf(task) });
    assert.equal(count(), 1, 'written before the commit resolved');
    assert.equal((await store.getReceipt(first.receipt_id))?.digest, first.digest);
    for (let i = 0; i < 3; i++) await store.commit({ body: bodyOf(task) });
    assert.deepEqual(store.writerStats(), { receipts: 4, batches: 4, syncs: 4, here: 0 }, 'a lone commit waits for no other');

    // Sixteen commits asked for in one turn: posted as 4, 4 and 8 (each part as large as what the
    // writer already has), so at most three batches and syncs; chained in the order asked.
    const turn = await Promise.all(Array.from({ length: 16 }, () => store.commit({ body: bodyOf(task) })));
    assert.equal(count(), 20);
    const stats = store.writerStats();
    assert.equal(stats.receipts, 20);
    assert.ok(stats.batches >= 5 && stats.batches <= 7, `16 commits of one turn took ${stats.batches - 4} batches`);
    assert.equal(stats.syncs, stats.batches);
    for (let i = 1; i < turn.length; i++) assert.equal(turn[i]?.prev_receipt_digest, turn[i - 1]?.digest, 'chained in the order asked');
    assert.equal((await store.verifyChain(task)).ok, true);
  });
});

test('durability normal: the writer batches the same and syncs nothing', async () => {
  const d = tempDirs('tg-group-normal');
  const store = new SqliteStore({ dir: d.state, durability: 'normal' });
  try {
    const task = freshTask();
    await Promise.all(Array.from({ length: 8 }, () => store.commit({ body: bodyOf(task) })));
    const stats = store.writerStats();
    assert.equal(stats.receipts, 8);
    assert.ok(stats.batches >= 1 && stats.batches <= 2, `8 commits of one turn took ${stats.batches} batches`);
    assert.equal(stats.syncs, 0);
  } finally {
    await store.close();
    d.cleanup();
  }
});

test('the writer starts on a turn\'s first commits while the event loop is still busy with the rest of the turn', async () => {
  // All calls in flight tend to reach their commits in one long turn (after the last batch's
  // answers). Were the commits posted only at the end of that turn, the writer would idle
  // through it. Here the turn is held open by a busy loop that watches the file through another
  // connection: the first receipts must be written before the turn ends.
  await withWatchedStore('tg-group-split', async (store, count) => {
    const task = freshTask();
    await store.commit({ body: bodyOf(task) }); // the writer thread is up
    const pending = Array.from({ length: 16 }, () => store.commit({ body: bodyOf(task) }));
    let seen = 1;
    const until = Date.now() + 10_000;
    while (seen === 1 && Date.now() < until) seen = count(); // this turn does not end until then
    assert.ok(seen >= 5, `receipts written while the turn lasted: ${seen - 1}`);
    const receipts = await Promise.all(pending);
    assert.equal(count(), 17);
    for (let i = 1; i < receipts.length; i++) assert.equal(receipts[i]?.prev_receipt_digest, receipts[i - 1]?.digest);
    assert.equal((await store.verifyChain(task)).ok, true);
  });
});

test('a batch of several tasks chains each task in order, moves every task head and the ledger once, and counts each task\'s receipts', async () => {
  await withWatchedStore('tg-group-tasks', async (store, count) => {
    const tasks = [freshTask(), freshTask(), freshTask()];
    await store.commit({ body: bodyOf(tasks[0] as TaskId) });
    // Interleaved: a, b, c, a, b, c … in one turn, so batches hold several receipts of each task.
    const asked = Array.from({ length: 24 }, (_, i) => tasks[i % 3] as TaskId);
    const sealed = await Promise.all(asked.map((t) => store.commit({ body: bodyOf(t) })));
    assert.equal(count(), 25);
    const reader = new Database(join(store.path), { readonly: true });
    try {
      for (const [k, task] of tasks.entries()) {
        const mine = sealed.filter((_, i) => i % 3 === k);
        for (let i = 1; i < mine.length; i++) assert.equal(mine[i]?.prev_receipt_digest, mine[i - 1]?.digest, `task ${k} chained in the order asked`);
        const row = reader.prepare('SELECT head_digest, receipt_count FROM tasks WHERE task_id = ?').get(task) as { head_digest: string; receipt_count: number };
        assert.equal(row.head_digest, mine.at(-1)?.digest, `task ${k}'s head is its last receipt`);
        assert.equal(row.receipt_count, k === 0 ? 9 : 8, `task ${k}'s receipts counted`);
        assert.equal((await store.verifyChain(task)).ok, true);
      }
      const ledger = reader.prepare('SELECT pos, head FROM audit_ledger WHERE id = 1').get() as { pos: number; head: string };
      const last = reader.prepare('SELECT ledger_pos, ledger FROM receipts ORDER BY ledger_pos DESC LIMIT 1').get() as { ledger_pos: number; ledger: string };
      assert.deepEqual(ledger, { pos: 25, head: last.ledger }, 'the ledger row is at the last receipt');
      assert.equal(last.ledger_pos, 25);
    } finally {
      reader.close();
    }
  });
});
