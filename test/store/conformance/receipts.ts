// Receipts: insert-only, hash-chained per task, durable before commit resolves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyOf as bodyOfReceipt, receiptDigest, type Digest, type Receipt } from '../../../src/protocol/index.js';
import type { ConformanceBackend } from './backend.js';
import { bodyOf, claimOf, freshTask, withState } from './fixtures.js';

export function receiptCases(backend: ConformanceBackend): void {
  describe('receipts', () => {
    it('each receipt of a task links the previous one; get and list give them back as stored', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        const other = freshTask();
        const chain: Receipt[] = [];
        for (let i = 0; i < 4; i++) chain.push(await s.commit({ body: bodyOf(task) }));
        const lone = await s.commit({ body: bodyOf(other) });
        assert.equal(chain[0]?.prev_receipt_digest, null);
        for (let i = 1; i < 4; i++) assert.equal(chain[i]?.prev_receipt_digest, chain[i - 1]?.digest);
        assert.equal(lone.prev_receipt_digest, null, 'chains are per task');
        assert.deepEqual(await s.getReceipt(chain[2]!.receipt_id), chain[2]);
        assert.equal(await s.getReceipt('rcpt_none' as never), undefined);
        assert.deepEqual((await s.listReceipts({ task })).map((r) => r.receipt_id), chain.map((r) => r.receipt_id).reverse(), 'newest first');
        assert.equal((await s.listReceipts({ task, limit: 2 })).length, 2);
        assert.equal((await s.listReceipts({})).length, 5);
        const report = await s.verifyChain();
        assert.deepEqual(report, { ok: true, tasks: 2, receipts: 5, broken: [] });
        assert.equal((await s.verifyChain(task)).receipts, 4);
      });
    });

    it('a receipt with a profile origin keeps it as stored, digested: get gives it back and the chain verifies', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        const origin = { kind: 'profile.v1', profile: 'claude-code', tool: 'Edit', arguments_digest: `sha256:${'a'.repeat(64)}` as Digest } as const;
        const plain = await s.commit({ body: bodyOf(task) });
        const r = await s.commit({ body: bodyOf(task, { origin }) });
        assert.equal('origin' in plain, false, 'absent on a native call');
        assert.deepEqual(r.origin, origin);
        assert.deepEqual((await s.getReceipt(r.receipt_id))?.origin, origin);
        assert.notEqual(receiptDigest({ ...bodyOfReceipt(r), origin: { ...origin, tool: 'Write' } }), r.digest, 'the origin is digested');
        assert.deepEqual(await s.verifyChain(task), { ok: true, tasks: 1, receipts: 2, broken: [] });
      });
    });

    it('commits issued together (one turn, many stores) keep every chain whole', async () => {
      await withState(backend, async ({ open }) => {
        const stores = [await open(), await open()];
        const task = freshTask();
        const receipts = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]!.commit({ body: bodyOf(task) })));
        assert.equal(new Set(receipts.map((r) => r.receipt_id)).size, 40);
        const linked = new Set(receipts.map((r) => r.prev_receipt_digest));
        assert.equal(linked.size, 40, 'no two receipts claim the same predecessor');
        assert.deepEqual(await stores[0]!.verifyChain(task), { ok: true, tasks: 1, receipts: 40, broken: [] });
      });
    });

    it('a commit that carries the effect settles its record in the same step', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        await s.claim(claimOf(task, 'k1'));
        const r = await s.commit({ body: bodyOf(task, { status: 'failed' }), effect: { key: 'k1', state: 'ambiguous' } });
        const rec = await s.findEffect(task, 'k1');
        assert.equal(rec?.state, 'ambiguous');
        assert.equal(rec?.receipt_id, r.receipt_id);
      });
    });

    it('receipts are insert-only: the storage refuses to change or remove one', async () => {
      await withState(backend, async ({ ref, open }) => {
        const s = await open();
        const task = freshTask();
        const r = await s.commit({ body: bodyOf(task) });
        assert.equal(await backend.tamper(ref, r.receipt_id, 'alter', true), false, 'an update is refused');
        assert.equal(await backend.tamper(ref, r.receipt_id, 'delete', true), false, 'a delete is refused');
        assert.deepEqual(await s.getReceipt(r.receipt_id), r);
      });
    });

    it('verifyChain names a receipt altered, and the link after one removed, behind the store\'s back', async () => {
      await withState(backend, async ({ ref, open }) => {
        const s = await open();
        const altered = freshTask();
        const cut = freshTask();
        const a: Receipt[] = [];
        const c: Receipt[] = [];
        for (let i = 0; i < 3; i++) a.push(await s.commit({ body: bodyOf(altered) }));
        for (let i = 0; i < 3; i++) c.push(await s.commit({ body: bodyOf(cut) }));
        assert.equal(await backend.tamper(ref, a[1]!.receipt_id, 'alter', false), true);
        assert.equal(await backend.tamper(ref, c[1]!.receipt_id, 'delete', false), true);
        const one = await s.verifyChain(altered);
        assert.equal(one.ok, false);
        assert.equal(one.broken[0]?.receipt_id, a[1]!.receipt_id);
        assert.match(one.broken[0]?.reason ?? '', /digest/);
        const two = await s.verifyChain(cut);
        assert.equal(two.broken[0]?.receipt_id, c[2]!.receipt_id);
        assert.match(two.broken[0]?.reason ?? '', /link/);
        assert.equal((await s.verifyChain()).broken.length, 2);
      });
    });
  });
}
