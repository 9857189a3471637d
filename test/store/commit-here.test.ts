// A lone call's receipt is committed on the event loop's own connection (the same transaction and
// WAL sync the writer runs, without its two thread hand-offs: docs/protocol.md#durability); calls
// in flight together still share the writer's group commit; the event loop never waits for
// another connection's write lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';
import { bodyOf, freshTask } from './conformance/fixtures.js';
import { receiptCount, withSecondConnection } from './sqlite-support.js';
import { CHECKPOINT_FRAMES, WalFile, WalIndex } from '../../src/store/sqlite/wal.js';
import { ToolgateError } from '../../src/protocol/index.js';
import { writeFileSync } from 'node:fs';

void test('a lone commit is written and synced on the caller\'s thread and chains with the writer\'s', () =>
  withSecondConnection('tg-here', {}, async (store, reader) => {
    const task = freshTask();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await store.commit({ body: bodyOf(task) }, { alone: true });
      ids.push(r.receipt_id);
      assert.equal(receiptCount(reader), i + 1, 'written before the commit resolved');
    }
    assert.deepEqual(store.writerStats(), { receipts: 3, batches: 3, syncs: 3, here: 3 });
    // Interleaved with the writer's commits (one not alone, then a turn of several).
    ids.push((await store.commit({ body: bodyOf(task) })).receipt_id);
    ids.push((await store.commit({ body: bodyOf(task) }, { alone: true })).receipt_id);
    const turn = await Promise.all([store.commit({ body: bodyOf(task) }, { alone: true }), store.commit({ body: bodyOf(task) })]);
    const stats = store.writerStats();
    assert.equal(stats.receipts, 7);
    // The turn's first, alone, was committed here; the second, not alone, by the writer.
    assert.equal(stats.here, 5, JSON.stringify(stats));
    ids.push(...turn.map((r) => r.receipt_id));
    const report = await store.verifyChain(task);
    assert.equal(report.receipts, 7);
    assert.deepEqual(report.broken, []);
    for (const id of ids) assert.ok(await store.getReceipt(id as never), id);
  }));

void test('another connection holding the write lock: a lone commit goes to the writer, and the event loop is not held', () =>
  withSecondConnection('tg-here-busy', { writable: true }, async (store, other) => {
    const task = freshTask();
    await store.commit({ body: bodyOf(task) }, { alone: true });
    other.exec('BEGIN IMMEDIATE');
    // Released by a timer: a commit that waited for the lock on this thread (SQLite's busy
    // handler, 5 s) would keep the timer from running until the wait gave up.
    setTimeout(() => other.exec('COMMIT'), 300);
    const t0 = performance.now();
    const pending = store.commit({ body: bodyOf(task) }, { alone: true });
    const held = performance.now() - t0;
    assert.ok(held < 2_500, `the event loop was held ${held.toFixed(0)} ms`);
    const r = await pending;
    assert.equal(r.prev_receipt_digest !== null, true);
    assert.deepEqual(store.writerStats(), { receipts: 2, batches: 2, syncs: 2, here: 1 });
  }));

void test('a lone commit whose WAL sync fails is store_unavailable, and so is every later commit, the writer\'s too', () =>
  withSecondConnection('tg-here-eio', {}, async (store) => {
    const task = freshTask();
    await store.commit({ body: bodyOf(task) }, { alone: true });
    const sync = Object.getOwnPropertyDescriptor(WalFile.prototype, 'sync')?.value as WalFile['sync'];
    // Linux may report a write-back error once and then forget it: the next sync would succeed.
    let failures = 1;
    WalFile.prototype.sync = function (this: WalFile): void {
      if (failures-- > 0) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      sync.call(this);
    };
    try {
      await assert.rejects(store.commit({ body: bodyOf(task) }, { alone: true }), (e: unknown) => e instanceof ToolgateError && e.code === 'store_unavailable');
      await assert.rejects(store.commit({ body: bodyOf(task) }, { alone: true }), (e: unknown) => e instanceof ToolgateError && e.code === 'store_unavailable', 'a lone commit after it');
      await assert.rejects(store.commit({ body: bodyOf(task) }), (e: unknown) => e instanceof ToolgateError && e.code === 'store_unavailable', 'a commit through the writer after it');
    } finally {
      WalFile.prototype.sync = sync;
    }
  }));

void test('through the runtime, sequential calls commit on the event loop and calls in flight together through the writer', async () => {
  const d = tempDirs('tg-here-rt');
  writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, store: sqliteStore({ durability: 'full' }) });
  try {
    const store = rt.store as SqliteStore;
    const call = (): Promise<unknown> => rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool: 'fs.read', arguments: { path: 'a.txt' } });
    for (let i = 0; i < 5; i++) await call();
    assert.equal(store.writerStats().here, 5, JSON.stringify(store.writerStats()));
    await Promise.all(Array.from({ length: 8 }, call));
    const s = store.writerStats();
    assert.equal(s.receipts, 13);
    assert.ok(s.here < 13, `calls in flight together went to the writer: ${JSON.stringify(s)}`);
    assert.deepEqual((await rt.store.verifyChain('t' as never)).broken, []);
  } finally {
    await rt.close();
    d.cleanup();
  }
});

void test('past the checkpoint mark, lone commits stay on the event loop while the writer checkpoints beside them; the one after a checkpoint that left frames behind goes to the writer, which copies them first, and the WAL starts over', () =>
  withSecondConnection('tg-here-tail', {}, async (store, reader) => {
    const task = freshTask();
    const wal = new WalIndex(store.path);
    try {
      let lone = 0;
      const commitHere = async (): Promise<void> => {
        await store.commit({ body: bodyOf(task) }, { alone: true });
        lone++;
      };
      while ((wal.state()?.frames ?? 0) < CHECKPOINT_FRAMES / 2) await commitHere();
      // A reader's snapshot here bounds how far a checkpoint copies: it stands for the commits a
      // checkpoint cannot copy because they came while it ran (their timing is not the test's).
      reader.exec('BEGIN');
      receiptCount(reader);
      const held = wal.state()?.frames ?? 0;
      while ((wal.state()?.frames ?? 0) < CHECKPOINT_FRAMES) await commitHere();
      assert.equal(store.writerStats().here, lone, 'every commit up to the mark on the event loop');
      // The writer was asked to checkpoint and does, beside the event loop (bounded wait).
      const until = Date.now() + 20_000;
      while ((wal.state()?.backfilled ?? 0) === 0) {
        assert.ok(Date.now() < until, 'the writer checkpointed after the WAL passed the mark');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const tail = wal.state();
      assert.ok(tail !== null && tail.backfilled <= held && tail.backfilled < tail.frames, `a tail left: ${JSON.stringify(tail)}, the reader at ${held}`);
      reader.exec('COMMIT');
      // The next lone commit still commits here (the tail was not yet seen); it sees the tail.
      await commitHere();
      assert.equal(store.writerStats().here, lone, 'committed on the event loop beside the tail');
      // The one after it is the writer's: it copies the tail and the WAL starts over at it.
      await store.commit({ body: bodyOf(task) }, { alone: true });
      assert.equal(store.writerStats().here, lone, 'the commit after the tail went to the writer');
      const after = wal.state();
      assert.ok(after !== null && after.frames < 100, `the WAL started over: ${JSON.stringify(after)}`);
      // And the next ones are the event loop's again.
      await commitHere();
      assert.equal(store.writerStats().here, lone);
      const report = await store.verifyChain(task);
      assert.equal(report.receipts, lone + 1);
      assert.deepEqual(report.broken, []);
    } finally {
      wal.close();
    }
  }));
