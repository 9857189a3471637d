// The idempotency state machine (DESIGN §3) as every store keeps it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Digest } from '../../../src/protocol/index.js';
import type { ConformanceBackend } from './backend.js';
import { bodyOf, claimOf, freshTask, withState } from './fixtures.js';
import { storeProcess } from './processes.js';

export function effectCases(backend: ConformanceBackend): void {
  describe('effects', () => {
    it('a first claim is new and records the claim; a second claim of a held record is in progress', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        assert.deepEqual(await s.claim(claimOf(task, 'k1')), { kind: 'new' });
        const rec = await s.findEffect(task, 'k1');
        assert.equal(rec?.state, 'claimed');
        assert.equal(rec?.args_digest, 'sha256:aaaa');
        assert.equal(rec?.owner_pid, process.pid);
        const again = await s.claim(claimOf(task, 'k1'));
        assert.equal(again.kind, 'in_progress');
      });
    });

    it('inspect of an absent record is free and writes nothing', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        assert.deepEqual(await s.inspect(claimOf(task, 'k1')), { kind: 'free' });
        assert.equal(await s.findEffect(task, 'k1'), undefined);
      });
    });

    it('the same key with other arguments or another tool is a conflict', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        await s.claim(claimOf(task, 'k1'));
        const other = await s.claim(claimOf(task, 'k1', { args_digest: 'sha256:bbbb' as Digest }));
        assert.equal(other.kind, 'conflict');
        assert.equal(other.kind === 'conflict' && other.record.args_digest, 'sha256:aaaa');
        assert.equal((await s.claim(claimOf(task, 'k1', { tool: 'test.other' }))).kind, 'conflict');
      });
    });

    it('a completed record replays its receipt, marked as a replay', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        await s.claim(claimOf(task, 'k1'));
        await s.markSent(task, 'k1', { path: 'a.txt' });
        const receipt = await s.commit({ body: bodyOf(task, { idempotency_key: 'k1' }), effect: { key: 'k1', state: 'completed' } });
        await s.letGo(task, 'k1');
        const rec = await s.findEffect(task, 'k1');
        assert.equal(rec?.state, 'completed');
        assert.equal(rec?.receipt_id, receipt.receipt_id);
        const again = await s.claim(claimOf(task, 'k1'));
        assert.equal(again.kind, 'replay');
        assert.equal(again.kind === 'replay' && again.receipt.receipt_id, receipt.receipt_id);
        assert.equal(again.kind === 'replay' && again.receipt.replay, true);
        assert.equal((await s.inspect(claimOf(task, 'k1'))).kind, 'replay');
      });
    });

    it('a released record is claimed again as new (a retry runs the effect)', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        await s.claim(claimOf(task, 'k1'));
        await s.commit({ body: bodyOf(task, { status: 'failed' }), effect: { key: 'k1', state: 'released' } });
        await s.letGo(task, 'k1');
        assert.equal((await s.inspect(claimOf(task, 'k1'))).kind, 'free');
        assert.deepEqual(await s.claim(claimOf(task, 'k1', { attempt_id: 'att_two' as never })), { kind: 'new' });
        assert.equal((await s.findEffect(task, 'k1'))?.attempt_id, 'att_two');
      });
    });

    it('sent keeps the intent; another store on the same state sees it in progress while its owner runs', async () => {
      await withState(backend, async ({ open }) => {
        const a = await open();
        const b = await open();
        const task = freshTask();
        await a.claim(claimOf(task, 'k1'));
        await a.markSent(task, 'k1', { path: 'a.txt', before: 'sha256:1' });
        const rec = await b.findEffect(task, 'k1');
        assert.equal(rec?.state, 'sent');
        assert.deepEqual(rec?.intent, { path: 'a.txt', before: 'sha256:1' });
        assert.equal((await b.claim(claimOf(task, 'k1'))).kind, 'in_progress');
        const unsettled = await b.listUnsettled();
        assert.deepEqual(unsettled.map((u) => [u.effect_key, u.state, u.owner_alive]), [['k1', 'sent', true]]);
        assert.equal((await b.takeOver(task, 'k1')).kind, 'in_progress');
      });
    });

    it('an ambiguous record is never run blindly: a retry gets it for reconcile (others wait), unless the tool is safe to repeat', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        await s.claim(claimOf(task, 'k1'));
        await s.markSent(task, 'k1', null);
        await s.settle(task, 'k1', 'ambiguous');
        await s.letGo(task, 'k1');
        assert.deepEqual((await s.listUnsettled()).map((u) => [u.effect_key, u.state, u.owner_alive]), [['k1', 'ambiguous', false]]);
        // A retry reconciles first: the record is handed over as sent by this owner, so a
        // concurrent retry (another store, as another server process would be) waits.
        const r = await s.claim(claimOf(task, 'k1'));
        assert.equal(r.kind, 'reconcile');
        assert.equal(r.kind === 'reconcile' && r.record.state, 'sent');
        assert.equal((await s.findEffect(task, 'k1'))?.state, 'sent');
        const other = await open();
        assert.equal((await other.claim(claimOf(task, 'k1'))).kind, 'in_progress');
        assert.equal((await other.takeOver(task, 'k1')).kind, 'in_progress');
        assert.deepEqual((await s.listUnsettled()).map((u) => [u.effect_key, u.state, u.owner_alive]), [['k1', 'sent', true]]);
        // Reconcile could not tell: back to ambiguous; an operator's takeOver adopts it the same way.
        await s.settle(task, 'k1', 'ambiguous');
        await s.letGo(task, 'k1');
        const taken = await other.takeOver(task, 'k1');
        assert.equal(taken.kind, 'taken');
        assert.equal((await s.claim(claimOf(task, 'k1'))).kind, 'in_progress');
        await other.settle(task, 'k1', 'ambiguous');
        await other.letGo(task, 'k1');
        assert.deepEqual(await s.claim(claimOf(task, 'k1', { safe_to_repeat: true })), { kind: 'new' });
      });
    });

    it('a record its own owner no longer holds is abandoned: a claimed one is reclaimed, a sent one handed over for reconcile', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        await s.claim(claimOf(task, 'claimed'));
        await s.letGo(task, 'claimed');
        assert.deepEqual(await s.claim(claimOf(task, 'claimed')), { kind: 'new' });
        await s.claim(claimOf(task, 'sent'));
        await s.markSent(task, 'sent', { path: 'x' });
        await s.letGo(task, 'sent');
        const r = await s.claim(claimOf(task, 'sent'));
        assert.equal(r.kind, 'reconcile');
        assert.equal(r.kind === 'reconcile' && r.record.state, 'sent');
      });
    });

    it('a sent record whose owner process died is taken over by the next store for reconcile', async () => {
      await withState(backend, async ({ ref, open }) => {
        const task = freshTask();
        const req = claimOf(task, 'k-dead');
        const dead = storeProcess(backend.module, ref, 'send-and-exit', 1, req);
        assert.equal(await dead.line(), 'SENT');
        await dead.end();
        const s = await open();
        const before = await s.findEffect(task, 'k-dead');
        assert.notEqual(before?.owner_pid, process.pid);
        assert.deepEqual((await s.listUnsettled()).map((u) => [u.effect_key, u.state, u.owner_alive]), [['k-dead', 'sent', false]]);
        const r = await s.claim(req);
        assert.equal(r.kind, 'reconcile');
        if (r.kind !== 'reconcile') return;
        assert.equal(r.record.owner_pid, process.pid, 'the record is adopted by the store that took it over');
        assert.deepEqual(r.record.intent, { step: 'sent by a process that then died' });
        assert.equal((await s.findEffect(task, 'k-dead'))?.owner, r.record.owner);
        // Adopted and held now: another store in this process sees it in progress.
        const other = await open();
        assert.equal((await other.claim(req)).kind, 'in_progress');
      });
    });

    it('takeOver: absent, settled, in progress, taken', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        assert.deepEqual(await s.takeOver(task, 'none'), { kind: 'absent' });
        await s.claim(claimOf(task, 'done'));
        await s.commit({ body: bodyOf(task), effect: { key: 'done', state: 'completed' } });
        await s.letGo(task, 'done');
        assert.equal((await s.takeOver(task, 'done')).kind, 'settled');
        await s.claim(claimOf(task, 'held'));
        await s.markSent(task, 'held', null);
        assert.equal((await s.takeOver(task, 'held')).kind, 'in_progress');
        await s.letGo(task, 'held');
        const taken = await s.takeOver(task, 'held');
        assert.equal(taken.kind, 'taken');
        await s.settle(task, 'held', 'ambiguous');
        assert.equal((await s.takeOver(task, 'held')).kind, 'taken', 'an ambiguous record is for reconcile or an operator');
      });
    });

    it('settle moves a record without a receipt; listEffects filters by state and task', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const t1 = freshTask();
        const t2 = freshTask();
        await s.claim(claimOf(t1, 'a'));
        await s.claim(claimOf(t1, 'b'));
        await s.claim(claimOf(t2, 'c'));
        await s.settle(t1, 'a', 'released');
        assert.equal((await s.findEffect(t1, 'a'))?.state, 'released');
        assert.equal((await s.findEffect(t1, 'a'))?.receipt_id, null);
        assert.deepEqual((await s.listEffects({ task: t1 })).map((r) => r.effect_key).sort(), ['a', 'b']);
        assert.deepEqual((await s.listEffects({ state: 'released' })).map((r) => r.effect_key), ['a']);
        assert.deepEqual((await s.listEffects({ task: t2, state: 'claimed' })).map((r) => r.effect_key), ['c']);
      });
    });
  });
}
