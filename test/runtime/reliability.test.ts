// One test per row of the reliability table (issue 2): each produces its typed outcome through
// the whole pipeline, with a real SQLite store and a probe tool whose ledger file is the effect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { envelope, tempDirs, testRuntime } from '../support/fixtures.js';
import { ledgerLines, probeTool } from '../support/probe-tools.js';
import { createRuntime } from '../../src/runtime/index.js';
import { builtinTools } from '../../src/tools/index.js';

function effectRows(state: string): { state: string; effect_key: string }[] {
  const db = new Database(join(state, 'toolgate.db'), { readonly: true });
  try {
    return db.prepare(`SELECT state, effect_key FROM effects`).all() as { state: string; effect_key: string }[];
  } finally {
    db.close();
  }
}

async function probeRuntime(extra: Parameters<typeof testRuntime>[0] = {}, probe: Partial<Parameters<typeof probeTool>[0]> = {}) {
  const dirs = tempDirs();
  const ledger = join(dirs.base, 'ledger');
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger, ...probe }), ...builtinTools()], ...extra });
  return { rt, ledger, state: dirs.state, workspace: dirs.workspace, done: async () => { await rt.close(); dirs.cleanup(); } };
}

test('invalid arguments: invalid_arguments with pointers, and no effect intent recorded', async () => {
  const p = await probeRuntime();
  try {
    const r = await p.rt.call(envelope('test.effect', { label: 7, extra: true }, { idempotency_key: 'k1' }));
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'invalid_arguments');
    const pointers = (r.error?.data['faults'] as { pointer: string }[]).map((f) => f.pointer).sort();
    assert.deepEqual(pointers, ['/extra', '/label']);
    assert.deepEqual(effectRows(p.state), []);
    assert.deepEqual(ledgerLines(p.ledger), []);
  } finally {
    await p.done();
  }
});

test('policy denial: policy_denied with reasons and policy version, and no execution', async () => {
  const p = await probeRuntime({ grant: { tools: ['fs.*'], effects: ['read'], read: ['**'], write: [] } });
  try {
    const r = await p.rt.call(envelope('test.effect', { label: 'x' }));
    assert.equal(r.status, 'denied');
    assert.equal(r.error?.code, 'policy_denied');
    assert.ok((r.error?.data['reasons'] as string[]).some((s) => s.includes('test.effect')));
    assert.equal(r.error?.data['policy_version'], r.decision?.policy_version);
    assert.equal(r.decision?.outcome, 'deny');
    assert.deepEqual(ledgerLines(p.ledger), []);
    assert.deepEqual(effectRows(p.state), []);
  } finally {
    await p.done();
  }
});

test('queue deadline exceeded: expired, no effect, nothing beyond released', async () => {
  const p = await probeRuntime({ concurrency: 1 });
  try {
    const slow = p.rt.call(envelope('test.effect', { label: 'slow', after_ms: 400 }));
    // The slow call must hold the one slot before the other is queued (a fixed 30 ms was not
    // enough under CI load: the second call got the slot and ran past its deadline).
    for (const stop = Date.now() + 60_000; p.rt.load.active < 1; await new Promise((r) => setTimeout(r, 5))) {
      if (Date.now() > stop) throw new Error('the slow call never took its slot');
    }
    const queued = await p.rt.call(envelope('test.effect', { label: 'queued' }, { idempotency_key: 'q1', deadline: new Date(Date.now() + 100).toISOString() }));
    assert.equal(queued.status, 'expired');
    assert.equal(queued.error?.code, 'deadline_expired');
    assert.equal(queued.error?.data['phase'], 'queue');
    assert.ok(queued.queued_ms >= 0);
    assert.equal((await slow).status, 'succeeded');
    assert.deepEqual(ledgerLines(p.ledger), ['slow']);
    assert.ok(effectRows(p.state).every((e) => e.state !== 'claimed' && e.state !== 'sent' && e.effect_key !== 'k:q1'));
  } finally {
    await p.done();
  }
});

test('timeout before the request was sent: timed_out, released, and a retry within the deadline runs', async () => {
  // The tool's timeout must leave the retry room on a loaded machine (markSent is an fsync):
  // 100 ms made the retry itself time out after sending, under load.
  const p = await probeRuntime({}, { timeout_ms: 1_000, stallFirstMs: 5_000 });
  try {
    const deadline = new Date(Date.now() + 30_000).toISOString();
    const r = await p.rt.call(envelope('test.effect', { label: 'late' }, { idempotency_key: 'k2', deadline }));
    assert.equal(r.status, 'timed_out');
    assert.equal(r.error?.code, 'timed_out');
    assert.equal(r.error?.data['phase'], 'before_send');
    assert.equal(r.error?.data['retryable'], true);
    assert.deepEqual(ledgerLines(p.ledger), []);
    assert.deepEqual(effectRows(p.state).map((e) => e.state), ['released']);
    // Nothing was sent, so the same key may run again within the remaining deadline.
    const again = await p.rt.call(envelope('test.effect', { label: 'late' }, { idempotency_key: 'k2', deadline }));
    assert.equal(again.status, 'succeeded');
    assert.deepEqual(ledgerLines(p.ledger), ['late']);
    assert.deepEqual(effectRows(p.state).map((e) => e.state), ['completed']);
    // A retry after the deadline passed is expired, even if it asks for a later deadline.
    const past = await p.rt.call(envelope('test.effect', { label: 'late2' }, { idempotency_key: 'k2b', deadline: new Date(Date.now() - 1).toISOString() }));
    assert.equal(past.status, 'expired');
  } finally {
    await p.done();
  }
});

test('timeout after the request may have been sent: ambiguous; the retry reconciles it first and answers with the recovered receipt, never running it again', async () => {
  const p = await probeRuntime({}, { timeout_ms: 100 });
  try {
    const env = envelope('test.effect', { label: 'inflight', after_ms: 1_000 }, { idempotency_key: 'k3' });
    const r = await p.rt.call(env);
    assert.equal(r.status, 'ambiguous');
    assert.equal(r.error?.code, 'ambiguous_effect');
    assert.deepEqual(effectRows(p.state).map((e) => e.state), ['ambiguous']);
    const retry = await p.rt.call(env);
    assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
    assert.equal((retry.evidence as { reconciliation?: { by: string } }).reconciliation?.by, 'reconcile');
    assert.deepEqual(ledgerLines(p.ledger), ['inflight'], 'the retry did not run the effect again');
    assert.deepEqual(effectRows(p.state).map((e) => e.state), ['completed']);
    const report = await p.rt.reconcile();
    assert.deepEqual(report.entries, [], 'nothing left for an operator');
    const after = await p.rt.call(env);
    assert.equal(after.replay, true);
    assert.equal(after.receipt_id, retry.receipt_id);
    assert.deepEqual(ledgerLines(p.ledger), ['inflight']);
  } finally {
    await p.done();
  }
});

test('an ambiguous effect reconcile cannot tell stays ambiguous: every retry asks again and answers reconciliation_required; an operator settles it', async () => {
  const p = await probeRuntime({}, { timeout_ms: 100 });
  try {
    // The ledger never gets the label (the effect sleeps past its deadline, cancelled): reconcile finds nothing either way
    const env = envelope('test.effect', { label: 'unknowable', after_ms: 1_000, unknown_on_reconcile: true }, { idempotency_key: 'k4' });
    const r = await p.rt.call(env);
    assert.equal(r.status, 'ambiguous');
    for (let i = 0; i < 2; i++) {
      const retry = await p.rt.call(env);
      assert.equal(retry.error?.code, 'reconciliation_required', JSON.stringify(retry.error));
      assert.deepEqual(effectRows(p.state).map((e) => e.state), ['ambiguous'], 'handed back to ambiguous after each look');
    }
    assert.deepEqual(ledgerLines(p.ledger), ['unknowable'], 'run once, never again');
  } finally {
    await p.done();
  }
});

test('partial multi-file change: the receipt enumerates applied and unapplied parts', async () => {
  const p = await probeRuntime();
  try {
    const r = await p.rt.call(envelope('test.effect', { label: 'p', partial: true }));
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'partial_failure');
    assert.deepEqual(r.partial, { applied: ['a'], unapplied: ['b'], restored: [] });
  } finally {
    await p.done();
  }
});

test('output truncated: success plus truncated and a continuation', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'big.txt'), 'line\n'.repeat(1000));
    const r = await rt.call(envelope('fs.read', { path: 'big.txt', max_lines: 10 }));
    assert.equal(r.status, 'succeeded');
    assert.equal(r.truncated, true);
    const result = r.result as { continuation: string | null; end_line: number };
    assert.equal(result.end_line, 10);
    assert.ok(result.continuation);
  } finally {
    await done();
  }
});

test('cancellation during an effect: the receipt says cancelled and no new work starts', async () => {
  // No detach grace: a keyed call's client cancel stops it at once (docs/protocol.md#long-calls).
  const p = await probeRuntime({ detachGraceMs: 0 });
  try {
    const controller = new AbortController();
    // The tool would run on for a minute after it sent, past its 10 s timeout: a call that ends
    // cancelled (not timed_out) was ended by the cancel. No wall-clock bound (a loaded machine).
    const pending = p.rt.call(envelope('test.effect', { label: 'c', after_ms: 60_000 }, { idempotency_key: 'k5' }), { signal: controller.signal });
    for (const stop = Date.now() + 60_000; !ledgerLines(p.ledger).includes('c'); await new Promise((r) => setTimeout(r, 10))) {
      if (Date.now() > stop) throw new Error('the effect was never sent');
    }
    controller.abort();
    const r = await pending;
    assert.equal(r.status, 'cancelled');
    assert.equal(r.error?.code, 'cancelled');
    assert.equal(r.error?.data['sent'], true);
    assert.deepEqual(effectRows(p.state).map((e) => e.state), ['ambiguous'], 'what was sent is not assumed undone');
    // A task cancellation refuses new calls of the task before they reach the tool.
    p.rt.cancelTask('task-1');
    const refused = await p.rt.call(envelope('test.effect', { label: 'after-cancel' }));
    assert.equal(refused.status, 'cancelled');
    assert.deepEqual(ledgerLines(p.ledger), ['c']);
  } finally {
    await p.done();
  }
});

test('tool version retired on resume: a retired version past its window is tool_version_retired (window_ended)', async () => {
  const dirs = tempDirs();
  const ledger = join(dirs.base, 'ledger');
  try {
    const v1 = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger })] });
    assert.equal((await v1.call(envelope('test.effect', { label: 'a' }))).status, 'succeeded');
    await v1.close();
    // The registry moves on: 1.0.0 retired (window over), 2.0.0 added.
    const tools = [
      probeTool({ ledger, deprecation: { state: 'retired', migration_window_ends: '2000-01-01T00:00:00Z' } }),
      probeTool({ ledger, version: '2.0.0' }),
    ];
    const v2 = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools });
    const resumed = await v2.call(envelope('test.effect', { label: 'b' }));
    assert.equal(resumed.status, 'failed');
    assert.equal(resumed.error?.code, 'tool_version_retired');
    assert.equal(resumed.error?.data['reason'], 'window_ended');
    const fresh = await v2.call(envelope('test.effect', { label: 'c' }, { task_id: 'task-2' }));
    assert.equal(fresh.tool_version, '2.0.0');
    await v2.close();
  } finally {
    dirs.cleanup();
  }
});

test('arguments that canonical JSON cannot carry (a lone surrogate) are invalid_arguments, not a defect', async () => {
  const { rt, done } = await testRuntime();
  try {
    const r = await rt.call(envelope('fs.read', { path: 'a\uD800b' }));
    assert.equal(r.error?.code, 'invalid_arguments');
    assert.equal(r.status, 'failed');
  } finally {
    await done();
  }
});
