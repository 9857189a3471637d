import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { envelope, tempDirs, testRuntime } from '../support/fixtures.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { CORE_MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { sealLink } from '../../src/store/chain-check.js';
import type { Digest, TaskId } from '../../src/protocol/index.js';
import { bodyOf } from './conformance/fixtures.js';

test('a receipt cannot be updated or deleted: the database refuses', async () => {
  const { rt, workspace, state, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    const r = await rt.call(envelope('fs.read', { path: 'a.txt' }));
    const db = new Database(join(state, 'toolgate.db'));
    try {
      assert.throws(() => db.prepare(`UPDATE receipts SET status = 'failed' WHERE receipt_id = ?`).run(r.receipt_id), /receipts are immutable/);
      assert.throws(() => db.prepare(`DELETE FROM receipts WHERE receipt_id = ?`).run(r.receipt_id), /receipts are immutable/);
    } finally {
      db.close();
    }
    assert.equal((await rt.getReceipt(r.receipt_id))?.status, 'succeeded');
  } finally {
    await done();
  }
});

test('audit verify finds a receipt altered behind the triggers\' back and names it', async () => {
  const { rt, workspace, state, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    const receipts = [];
    for (let i = 0; i < 5; i++) receipts.push(await rt.call(envelope('fs.read', { path: 'a.txt' })));
    assert.equal((await rt.store.verifyChain()).ok, true);
    for (let i = 1; i < 5; i++) assert.equal(receipts[i]?.prev_receipt_digest, receipts[i - 1]?.digest, 'each receipt links the previous one');

    const db = new Database(join(state, 'toolgate.db'));
    try {
      db.exec('DROP TRIGGER receipts_immutable_update');
      const victim = receipts[2];
      assert.ok(victim);
      const forged = { ...victim, result: { ...(victim.result as object), content: 'forged\n' } };
      db.prepare(`UPDATE receipts SET body = ? WHERE receipt_id = ?`).run(JSON.stringify(forged), victim.receipt_id);
    } finally {
      db.close();
    }
    const report = await rt.store.verifyChain();
    assert.equal(report.ok, false);
    assert.equal(report.broken.length, 1);
    assert.equal(report.broken[0]?.receipt_id, receipts[2]?.receipt_id);
    assert.match(report.broken[0]?.reason ?? '', /digest/);
  } finally {
    await done();
  }
});

test('audit verify finds a receipt removed from the middle of a chain', async () => {
  const { rt, workspace, state, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'a.txt'), 'a\n');
    const receipts = [];
    for (let i = 0; i < 3; i++) receipts.push(await rt.call(envelope('fs.read', { path: 'a.txt' })));
    const db = new Database(join(state, 'toolgate.db'));
    try {
      db.exec('DROP TRIGGER receipts_immutable_delete');
      db.prepare(`DELETE FROM receipts WHERE receipt_id = ?`).run(receipts[1]?.receipt_id);
    } finally {
      db.close();
    }
    const report = await rt.store.verifyChain();
    assert.equal(report.ok, false);
    assert.equal(report.broken[0]?.receipt_id, receipts[2]?.receipt_id);
    assert.match(report.broken[0]?.reason ?? '', /link/);
  } finally {
    await done();
  }
});

test('migrations are versioned and re-opening a store applies nothing twice', async () => {
  const { state, done } = await testRuntime();
  const a = new SqliteStore({ dir: state + '-x' });
  await a.close();
  const b = new SqliteStore({ dir: state + '-x' });
  const v = b.db.prepare(`SELECT version FROM schema_migrations WHERE name = 'core'`).get() as { version: number };
  assert.equal(v.version, CORE_MIGRATIONS.steps.length);
  assert.equal(b.db.pragma('journal_mode', { simple: true }), 'wal');
  await b.close();
  return done();
});

test('the receipt writer stores what sealLink makes of a body; a NaN is kept in its JSON form; a lone surrogate fails alone and takes no place in the chain', async () => {
  const d = tempDirs('tg-writer-bodies');
  const store = new SqliteStore({ dir: d.state });
  const reader = new Database(join(d.state, 'toolgate.db'), { readonly: true });
  const storedRow = reader.prepare<[string], { body: string; digest: string; receipt_id: string; prev_digest: string | null }>('SELECT body, digest, receipt_id, prev_digest FROM receipts WHERE receipt_id = ?');
  try {
    const task = 'task_writer_bodies' as TaskId;
    const bodies = [bodyOf(task), bodyOf(task, { result: { text: 'é \u2028 "q" \\ 😀', n: -0, big: 1e21, nested: [{ z: 1, a: null }] }, evidence: { revision: 3 } }), bodyOf(task, { status: 'failed', error: { code: 'execution_failed', message: 'x', retryable: false, data: {} } as never })];
    let prev: Digest | null = null;
    for (const body of bodies) {
      const r = await store.commit({ body });
      const { row } = sealLink(body, prev);
      assert.deepEqual(storedRow.get(r.receipt_id), { body: row.body, digest: row.digest, receipt_id: row.receipt_id, prev_digest: prev });
      prev = r.digest;
    }
    // JSON writes NaN as null: such a body is stored (and digested) in its JSON form, as before.
    const nan = await store.commit({ body: bodyOf(task, { result: { ratio: Number.NaN } }) });
    assert.equal(((await store.getReceipt(nan.receipt_id))?.result as { ratio: unknown }).ratio, null);
    await assert.rejects(store.commit({ body: bodyOf(task, { result: { text: 'a\uD800' } }) }), /Lone surrogate/);
    const after = await store.commit({ body: bodyOf(task) });
    assert.equal(after.prev_receipt_digest, nan.digest, 'the refused body took no place in the chain');
    assert.deepEqual(await store.verifyChain(task), { ok: true, tasks: 1, receipts: 5, broken: [] });
  } finally {
    reader.close();
    await store.close();
    d.cleanup();
  }
});
