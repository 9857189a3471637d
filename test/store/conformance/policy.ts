// The policy layer's state: approvals, budgets, denial counts, issued grants.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bindGrant, DEFAULT_GRANT, type ApprovalRecord, type BudgetLimits } from '../../../src/policy/index.js';
import type { Digest, TaskId } from '../../../src/protocol/index.js';
import type { ConformanceBackend } from './backend.js';
import { freshTask, withState } from './fixtures.js';

const NOW = 1_700_000_000_000;
const NO_LIMITS: BudgetLimits = { calls: null, bytes_read: null, bytes_written: null, cpu_ms: null, wall_ms: null, cost: null, calls_per_minute: null };

function approval(task: TaskId, id: string, over: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id,
    task_id: task,
    action_digest: 'sha256:action' as Digest,
    policy_version: 'pv1',
    grant_digest: 'sha256:grant' as Digest,
    action: { tool: 'fs.write', tool_version: '1.0.0', effect_class: 'write', resources: [{ kind: 'path', path: 'a.txt', access: 'write' }], args_digest: 'sha256:args' as Digest },
    reasons: ['writes need approval'],
    determining: ['p1'],
    status: 'pending',
    created_at: NOW,
    expires_at: NOW + 60_000,
    decided_at: null,
    decided_by: null,
    ...over,
  };
}

export function policyCases(backend: ConformanceBackend): void {
  describe('policy state', () => {
    it('approvals: created, found by their exact binding, decided once while unexpired, listed', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        const binding = { task_id: task, action_digest: 'sha256:action' as Digest, policy_version: 'pv1', grant_digest: 'sha256:grant' as Digest };
        assert.equal(await s.approvals.findApproval(binding), undefined);
        await s.approvals.createApproval(approval(task, 'apr_old', { created_at: NOW - 10 }));
        await s.approvals.createApproval(approval(task, 'apr_new'));
        await s.approvals.createApproval(approval(task, 'apr_other', { policy_version: 'pv2' }));
        assert.equal((await s.approvals.findApproval(binding))?.id, 'apr_new', 'the newest request with exactly this binding');
        assert.deepEqual(await s.approvals.getApproval('apr_new'), approval(task, 'apr_new'));
        const decided = await s.approvals.decideApproval('apr_new', { status: 'approved', by: 'alice', at: NOW + 1, expires_at: NOW + 99 });
        assert.equal(decided?.status, 'approved');
        assert.equal(decided?.decided_by, 'alice');
        assert.equal(decided?.expires_at, NOW + 99);
        assert.equal(await s.approvals.decideApproval('apr_new', { status: 'denied', by: 'bob', at: NOW + 2, expires_at: NOW + 99 }), undefined, 'decided once');
        assert.equal(await s.approvals.decideApproval('apr_old', { status: 'approved', by: 'bob', at: NOW + 60_000, expires_at: NOW + 99 }), undefined, 'a lapsed request cannot be decided');
        assert.deepEqual((await s.approvals.listApprovals({ task, status: 'pending' })).map((a) => a.id), ['apr_old', 'apr_other']);
        assert.equal((await s.approvals.listApprovals({ task })).length, 3);
        const b = await open();
        assert.equal((await b.approvals.getApproval('apr_new'))?.status, 'approved', 'another store on the state sees the decision');
      });
    });

    it('approval asks: used once, by the first of many users at once; a used, expired or unknown ask is refused with its reason', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const other = await open();
        const task = freshTask();
        const ask = { id: `${task}:ask_1`, approval_id: 'apr_1', task_id: task, action_digest: 'sha256:action' as Digest, created_at: NOW, expires_at: NOW + 60_000 };
        await s.approvals.recordAsk(ask);
        await s.approvals.recordAsk({ ...ask, id: `${task}:ask_old`, expires_at: NOW + 10 });
        // Ten uses at once over two store instances: exactly one gets the ask.
        const uses = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? s : other).approvals.useAsk(`${task}:ask_1`, NOW + 1)));
        assert.equal(uses.filter((u) => u.ok).length, 1, 'used once');
        assert.deepEqual(uses.find((u) => u.ok), { ok: true, ask });
        assert.deepEqual(uses.filter((u) => !u.ok).map((u) => (u.ok ? '' : u.reason)), Array(9).fill('used'));
        assert.deepEqual(await s.approvals.useAsk(`${task}:ask_old`, NOW + 10), { ok: false, reason: 'expired' });
        assert.deepEqual(await s.approvals.useAsk(`${task}:ask_none`, NOW), { ok: false, reason: 'unknown' });
        // Recording a new ask forgets the ones that expired before it.
        await s.approvals.recordAsk({ ...ask, id: `${task}:ask_2`, created_at: NOW + 20, expires_at: NOW + 90_000 });
        assert.deepEqual(await s.approvals.useAsk(`${task}:ask_old`, NOW + 20), { ok: false, reason: 'unknown' });
        assert.equal((await other.approvals.useAsk(`${task}:ask_2`, NOW + 21)).ok, true);
      });
    });

    it('budgets: reserve within the limits, refuse past them, settle charges the actual use, release charges nothing', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        const limits = { ...NO_LIMITS, calls: 2, bytes_read: 100 };
        const reserve = (id: string, amounts: Record<string, number>, now = NOW) => s.budgets.reserve({ id, task_id: task, limits, amounts, now, expires_at: now + 60_000 });
        assert.deepEqual(await reserve('r1', { calls: 1, bytes_read: 0 }), { ok: true });
        assert.deepEqual(await reserve('r2', { calls: 1 }), { ok: true });
        assert.deepEqual(await reserve('r3', { calls: 1 }), { ok: false, dimension: 'calls', limit: 2, used: 0, reserved: 2, requested: 1 });
        assert.deepEqual((await s.budgets.usage(task)).calls, { used: 0, reserved: 2 });
        await s.budgets.settle('r1', { calls: 1, bytes_read: 100 });
        await s.budgets.settle('r1', { calls: 1, bytes_read: 100 });
        const after = await s.budgets.usage(task);
        assert.deepEqual(after.calls, { used: 1, reserved: 1 }, 'settling twice charges once');
        assert.deepEqual(after.bytes_read, { used: 100, reserved: 0 });
        const full = await reserve('r4', { bytes_read: 0 });
        assert.equal(full.ok === false && full.dimension, 'bytes_read', 'a used-up dimension refuses even a zero estimate');
        await s.budgets.release('r2');
        assert.deepEqual((await s.budgets.usage(task)).calls, { used: 1, reserved: 0 });
        assert.deepEqual((await s.budgets.usage(freshTask())).cost, { used: 0, reserved: 0 });
      });
    });

    it('budgets: an abandoned reservation (past its expiry) is returned at the next reserve; the call rate counts a sliding minute', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        const limits = { ...NO_LIMITS, calls: 1 };
        assert.deepEqual(await s.budgets.reserve({ id: 'gone', task_id: task, limits, amounts: { calls: 1 }, now: NOW, expires_at: NOW + 10 }), { ok: true });
        assert.equal((await s.budgets.reserve({ id: 'early', task_id: task, limits, amounts: { calls: 1 }, now: NOW + 5, expires_at: NOW + 60_000 })).ok, false);
        assert.deepEqual(await s.budgets.reserve({ id: 'late', task_id: task, limits, amounts: { calls: 1 }, now: NOW + 11, expires_at: NOW + 60_000 }), { ok: true });
        const rated = freshTask();
        const rate = { ...NO_LIMITS, calls_per_minute: 2 };
        const at = (id: string, now: number) => s.budgets.reserve({ id, task_id: rated, limits: rate, amounts: { calls: 1 }, now, expires_at: now + 1000 });
        assert.equal((await at('m1', NOW)).ok, true);
        assert.equal((await at('m2', NOW + 1000)).ok, true);
        const third = await at('m3', NOW + 2000);
        assert.equal(third.ok === false && third.dimension, 'calls_per_minute');
        assert.equal((await at('m4', NOW + 60_001)).ok, true, 'the first call left the minute');
      });
    });

    it('denials are counted per task and key', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        assert.equal(await s.denials.denialCount(task, 'd1'), 0);
        assert.equal(await s.denials.recordDenial(task, 'd1', NOW), 1);
        assert.equal(await s.denials.recordDenial(task, 'd1', NOW + 1), 2);
        assert.equal(await s.denials.recordDenial(task, 'd2', NOW), 1);
        assert.equal(await (await open()).denials.denialCount(task, 'd1'), 2);
        assert.equal(await s.denials.denialCount(freshTask(), 'd1'), 0);
      });
    });

    it('grants: the first grant issued to a task stays in force', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        const task = freshTask();
        const subject = { tenant: 'acme', principal: 'agent', task_id: task, attempt_id: null, cancellation_epoch: 0 };
        const first = bindGrant(DEFAULT_GRANT, subject);
        const second = bindGrant({ ...DEFAULT_GRANT, tools: ['fs.read'] }, subject);
        assert.equal(await s.grants.getGrant(task), undefined);
        assert.deepEqual(await s.grants.putGrantIfAbsent(first), first);
        assert.deepEqual(await s.grants.putGrantIfAbsent(second), first);
        assert.deepEqual(await (await open()).grants.getGrant(task), first);
      });
    });
  });
}
