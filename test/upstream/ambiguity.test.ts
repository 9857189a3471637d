import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/processes.js';
import { MANIFEST, openHarness, type Harness } from './support.js';

const inSeconds = (s: number): string => new Date(Date.now() + s * 1000).toISOString();

describe('effects and ambiguity through the gateway', () => {
  let h: Harness;
  before(async () => {
    h = await openHarness();
  });
  after(async () => {
    await h?.done();
  });

  it('cancellation reaches the upstream: the fixture receives notifications/cancelled', async () => {
    const ac = new AbortController();
    const pending = h.call('t-cancel', 'issues.hang', {}, {}, ac.signal);
    // Cancel once the upstream is working on it (the call is in its handler), not before it was sent.
    assert.ok(await waitFor(() => h.hangs() === 1, 15_000), 'the upstream started the call');
    ac.abort();
    const r = await pending;
    assert.equal(r.status, 'cancelled', JSON.stringify(r.error));
    assert.ok(await waitFor(() => h.cancellations().some((c) => c['what'] === 'hang'), 10_000), 'the upstream recorded the cancellation');
  });

  it('a deadline passing after the send is ambiguous; reconcile through find_issue settles it completed: exactly one effect', async () => {
    const args = { repo: 'acme/app', title: 'held', mode: 'hold' };
    const asked = await h.call('t-hold', 'issues.create_issue', args, { idempotency_key: 'hold-1' });
    await h.rt.approvals.approve(asked.error?.data['approval_id'] as string, 'test-operator', Date.now());
    const r = await h.call('t-hold', 'issues.create_issue', args, { idempotency_key: 'hold-1', deadline: inSeconds(5) });
    assert.equal(r.status, 'ambiguous', JSON.stringify(r.error));
    assert.equal(h.effects().length, 1);
    assert.ok(await waitFor(() => h.cancellations().some((c) => c['what'] === 'create_issue'), 10_000), 'the deadline was forwarded as a cancellation');

    const report = await h.rt.reconcile();
    const entry = report.entries.find((e) => e.task_id === 't-hold');
    assert.equal(entry?.settled, 'completed', JSON.stringify(report));
    // The retry replays the settling receipt: no second send.
    const retry = await h.call('t-hold', 'issues.create_issue', args, { idempotency_key: 'hold-1' });
    assert.equal(retry.replay, true);
    assert.equal(h.effects().length, 1, 'exactly one effect');
  });

  it('the upstream crashes after taking the effect: ambiguous, restarted with backoff, reconciled through the restarted server (one effect)', async () => {
    const startsBefore = h.starts();
    const args = { repo: 'acme/app', title: 'crash', mode: 'crash' };
    const asked = await h.call('t-crash', 'issues.create_issue', args, { idempotency_key: 'crash-1' });
    await h.rt.approvals.approve(asked.error?.data['approval_id'] as string, 'test-operator', Date.now());
    const effectsBefore = h.effects().length;
    const r = await h.call('t-crash', 'issues.create_issue', args, { idempotency_key: 'crash-1' });
    assert.equal(r.status, 'ambiguous', JSON.stringify(r.error));
    assert.equal((r.error?.data as { reason: string }).reason, 'upstream_stopped');
    assert.equal(h.effects().length, effectsBefore + 1);
    assert.ok(await waitFor(() => h.starts() === startsBefore + 1, 15_000), 'restarted after the crash');
    assert.ok(await waitFor(() => h.rt.gateway?.status()[0]?.restarts === 1, 15_000));

    // A retry is never a second send: it reconciles first (find_issue by the derived key, on the
    // restarted server) and answers with the recovered receipt; later retries replay it.
    const first = await h.call('t-crash', 'issues.create_issue', args, { idempotency_key: 'crash-1' });
    assert.equal(first.status, 'succeeded', JSON.stringify(first.error));
    assert.equal((first.evidence as { reconciliation?: { by: string } }).reconciliation?.by, 'reconcile');
    const report = await h.rt.reconcile();
    assert.equal(report.entries.filter((e) => e.task_id === 't-crash').length, 0, 'nothing left for an operator');
    const retry = await h.call('t-crash', 'issues.create_issue', args, { idempotency_key: 'crash-1' });
    assert.equal(retry.replay, true);
    assert.equal(retry.receipt_id, first.receipt_id);
    assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
    assert.equal(h.effects().length, effectsBefore + 1, 'exactly one effect');
    // The restarted server serves reads.
    const read = await h.call('t-crash', 'issues.list_issues', { repo: 'acme/app' });
    assert.equal(read.status, 'succeeded');
  });
});

describe('ambiguity without a reconcile tool in the manifest', () => {
  it('stays for a person: reconcile leaves it unsettled, a retry is refused, toolgate reconcile --settle settles it', async () => {
    const { reconcile: _none, ...noReconcile } = MANIFEST.create_issue;
    const h = await openHarness({ manifest: { ...MANIFEST, create_issue: noReconcile } });
    try {
      const args = { repo: 'acme/app', title: 'held', mode: 'hold' };
      const asked = await h.call('t-p', 'issues.create_issue', args, { idempotency_key: 'p-1' });
      await h.rt.approvals.approve(asked.error?.data['approval_id'] as string, 'test-operator', Date.now());
      const r = await h.call('t-p', 'issues.create_issue', args, { idempotency_key: 'p-1', deadline: inSeconds(5) });
      assert.equal(r.status, 'ambiguous');
      const report = await h.rt.reconcile();
      const entry = report.entries.find((e) => e.task_id === 't-p');
      assert.equal(entry?.settled, 'unknown');
      assert.match(String(entry?.reason), /names no reconcile tool/);
      const retry = await h.call('t-p', 'issues.create_issue', args, { idempotency_key: 'p-1' });
      assert.equal(retry.error?.code, 'reconciliation_required');
      const settled = await h.rt.settle('t-p', entry?.effect_key as string, 'completed', 'checked the tracker by hand');
      assert.equal(settled.status, 'succeeded', JSON.stringify(settled.error));
      const replay = await h.call('t-p', 'issues.create_issue', args, { idempotency_key: 'p-1' });
      assert.equal(replay.replay, true);
      assert.equal(h.effects().length, 1);
    } finally {
      await h.done();
    }
  });
});

describe('the upstream killed from outside during a read', () => {
  it('the read fails typed (upstream_unavailable, crashed), nothing ambiguous; the server is restarted and serves again', async () => {
    const h = await openHarness();
    try {
      const pending = h.call('t-kill', 'issues.hang', {});
      assert.ok(await waitFor(() => h.hangs() === 1, 15_000));
      const pid = h.rt.gateway?.status()[0]?.pid ?? assert.fail('no pid');
      process.kill(pid, 'SIGKILL');
      const r = await pending;
      assert.equal(r.status, 'failed', JSON.stringify(r.error));
      assert.equal(r.error?.code, 'upstream_unavailable');
      assert.equal((r.error?.data as { reason: string }).reason, 'crashed');
      assert.ok(await waitFor(() => h.starts() === 2, 15_000), 'restarted');
      const again = await h.call('t-kill', 'issues.list_issues', { repo: 'acme/app' });
      assert.equal(again.status, 'succeeded', JSON.stringify(again.error));
      assert.deepEqual(await h.rt.listUnsettled(), []);
    } finally {
      await h.done();
    }
  });
});
