// Receipt retention (docs/protocol.md#retention): with `digest` (the default) a stored fs.read
// receipt binds the page by its sha256 instead of copying the workspace into the database;
// `inline` keeps the copy. Either way the chain verifies, the caller gets the page, and a keyed
// call (whose receipt may be handed back for a repeated key) keeps everything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { bodyOf, receiptDigest, type Receipt } from '../../src/protocol/index.js';
import { envelope, filesUnder, testRuntime } from '../support/fixtures.js';
import { sqliteStore } from '../../src/store/index.js';

const PAGE = ('0123456789abcdef'.repeat(4) + '\n').repeat(64);
const MARK = 'UNIQUE-CONTENT-MARK-';

function storedBody(state: string, id: string): { body: string; digest: string } {
  const db = new Database(join(state, 'toolgate.db'), { readonly: true });
  try {
    return db.prepare<[string], { body: string; digest: string }>('SELECT body, digest FROM receipts WHERE receipt_id = ?').get(id) as { body: string; digest: string };
  } finally {
    db.close();
  }
}

test('retention digest (default): the page is bound by sha256, not stored; the caller gets it; the chain verifies', async () => {
  const { rt, workspace, state, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'a.txt'), MARK + PAGE);
    const r = await rt.call(envelope('fs.read', { path: 'a.txt' }));
    assert.equal(r.status, 'succeeded');
    const content = (r.result as { content: string }).content;
    assert.equal(content, MARK + PAGE, 'the caller gets the page');
    const sha = `sha256:${createHash('sha256').update(content).digest('hex')}`;
    assert.deepEqual(r.bound, [{ pointer: '/result/content', sha256: sha, bytes: Buffer.byteLength(content) }]);

    const row = storedBody(state, r.receipt_id);
    assert.ok(!row.body.includes(MARK), 'the stored body holds no copy of the page');
    // A task's first receipt also records the host tools (about 1 KB, docs/release.md): not counted here.
    const { host_tools: _tools, ...withoutTools } = JSON.parse(row.body) as Record<string, unknown>;
    assert.ok(JSON.stringify(withoutTools).length < 2_000, `stored body is ${row.body.length} bytes`);
    const stored = (await rt.store.getReceipt(r.receipt_id)) as Receipt;
    assert.equal((stored.result as Record<string, unknown>)['content'], undefined);
    assert.deepEqual(stored.bound, r.bound);
    // The digest is the stored form's: a holder of the full receipt removes the bound members and checks.
    const { content: _c, ...rest } = r.result as Record<string, unknown>;
    assert.equal(receiptDigest(bodyOf({ ...r, result: rest })), r.digest);
    assert.equal(receiptDigest(bodyOf(stored)), stored.digest);
    assert.equal((await rt.store.verifyChain()).ok, true);
    await rt.close();
    // Nothing of the page anywhere in the state dir (database, WAL, artifacts).
    for (const f of filesUnder(state)) assert.ok(!readFileSync(f).includes(MARK), `${f} holds the page`);
  } finally {
    await done();
  }
});

test('retention inline keeps the page in the stored receipt; a keyed call keeps it under digest too (it may be replayed)', async () => {
  const inline = await testRuntime({ receiptRetention: 'inline' });
  try {
    writeFileSync(join(inline.workspace, 'a.txt'), MARK + PAGE);
    const r = await inline.rt.call(envelope('fs.read', { path: 'a.txt' }));
    assert.equal(r.bound, undefined);
    assert.ok(storedBody(inline.state, r.receipt_id).body.includes(MARK));
    assert.equal((await inline.rt.store.verifyChain()).ok, true);
  } finally {
    await inline.done();
  }
  const keyed = await testRuntime();
  try {
    writeFileSync(join(keyed.workspace, 'a.txt'), MARK + PAGE);
    const first = await keyed.rt.call(envelope('fs.read', { path: 'a.txt' }, { idempotency_key: 'k1' }));
    assert.equal(first.bound, undefined);
    const again = await keyed.rt.call(envelope('fs.read', { path: 'a.txt' }, { idempotency_key: 'k1' }));
    assert.equal((again.result as { content: string }).content, MARK + PAGE, 'a replay hands back the whole result');
  } finally {
    await keyed.done();
  }
});

test('a refused or failed read is stored whole (nothing to bind), and bounded', async () => {
  const { rt, state, done } = await testRuntime();
  try {
    const r = await rt.call(envelope('fs.read', { path: 'missing.txt'.repeat(2_000) }));
    assert.notEqual(r.status, 'succeeded');
    assert.equal(r.bound, undefined);
    assert.ok(storedBody(state, r.receipt_id).body.length < 8_000, 'a refusal echoes bounded strings');
  } finally {
    await done();
  }
});

test('durability full: a WAL that vanishes under the store fails the commit store_unavailable (typed), never returns an unsynced receipt', async () => {
  const { rt, workspace, state, done } = await testRuntime({ store: sqliteStore({ durability: 'full' }) });
  try {
    writeFileSync(join(workspace, 'a.txt'), 'x\n');
    assert.equal((await rt.call(envelope('fs.read', { path: 'a.txt' }))).status, 'succeeded');
    unlinkSync(join(state, 'toolgate.db-wal'));
    // SQLite keeps writing its open (now nameless) WAL; the store cannot make that durable.
    const r = await rt.call(envelope('fs.read', { path: 'a.txt' })).then(
      (x) => ({ ok: true as const, status: x.status, code: x.error?.code }),
      (e: unknown) => ({ ok: false as const, code: (e as { code?: string }).code }),
    );
    assert.equal(r.ok ? r.code : r.code, 'store_unavailable', JSON.stringify(r));
  } finally {
    await done().catch(() => undefined);
  }
});
