// The call object: it gives back what it acquired in one place, newest first, once. The
// services it gives back to are recorders here, because the order is what is checked; the
// test of the same promise through a real runtime is call-lifecycle.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { Call, type CallServices } from '../../src/runtime/call.js';
import { CallScope } from '../../src/runtime/call-scope.js';
import { RunningCalls } from '../../src/runtime/running-calls.js';
import type { BudgetReservation } from '../../src/policy/index.js';
import { abortKindOf, type TaskId } from '../../src/protocol/index.js';

const TASK = 'task-1' as TaskId;

function recorder(opts: { settleThrows?: boolean } = {}) {
  const log: string[] = [];
  const running = new RunningCalls();
  const services: CallServices = {
    policy: {
      settle: async () => {
        log.push('budget settled');
        if (opts.settleThrows) throw new Error('the budget store failed');
      },
      release: async () => void log.push('budget released'),
    },
    store: { letGo: async (_task, key) => void log.push(`let go ${key}`) },
    running: {
      enter: (task, scope) => running.enter(task, scope),
      leave: (task, scope) => {
        log.push('scope left');
        running.leave(task, scope);
      },
    },
    effects: { register: () => {}, unregister: () => {} },
  };
  return { log, services, running };
}

/** A call admitted the way the admit and claim stages do it, with a client signal to watch. */
function admitted(r: ReturnType<typeof recorder>, client: AbortSignal): { call: Call; scope: CallScope } {
  const call = new Call(r.services, { task_id: TASK }, { signal: client }, []);
  call.draft.task_id = TASK;
  const scope = call.holdScope(new CallScope(Date.now() + 60_000, [{ signal: client, kind: 'client_cancel' }]));
  call.holdReservation({ id: 'res-1', task_id: TASK, amounts: { calls: 1 } } as unknown as BudgetReservation);
  call.holdSlot(() => void r.log.push('slot released'));
  call.holdEffect('k:one', false);
  return { call, scope };
}

test('endRun gives back slot, budget and scope newest first; dispose then lets go of the effect record, once', async () => {
  const r = recorder();
  const client = new AbortController();
  const { call } = admitted(r, client.signal);
  assert.equal(getEventListeners(client.signal, 'abort').length, 1);
  await call.endRun();
  assert.deepEqual(r.log, ['slot released', 'budget released', 'scope left'], 'no tool ran: the reservation is released, not charged');
  assert.equal(getEventListeners(client.signal, 'abort').length, 0, 'the scope removed its listener');
  assert.equal(call.effectKey, 'k:one', 'the record stays held until the receipt is committed');
  await call.dispose();
  await call.dispose();
  await call.endRun();
  assert.deepEqual(r.log, ['slot released', 'budget released', 'scope left', 'let go k:one'], 'each is given back exactly once');
  assert.equal(call.effectKey, null);
});

test('dispose without endRun gives back everything, newest first: the record, then slot, budget and scope', async () => {
  const r = recorder();
  const client = new AbortController();
  const { call } = admitted(r, client.signal);
  await call.dispose();
  assert.deepEqual(r.log, ['let go k:one', 'slot released', 'budget released', 'scope left']);
  assert.equal(getEventListeners(client.signal, 'abort').length, 0);
});

test('a budget store that fails at settle still lets the scope go, and the failure is not swallowed', async () => {
  const r = recorder({ settleThrows: true });
  const client = new AbortController();
  const { call } = admitted(r, client.signal);
  call.draft.normalized_action = { tool: 't', tool_version: '1.0.0', effect_class: 'read', resources: [], args_digest: 'sha256:00' as never };
  call.ran({ status: 'succeeded', result: null, error: null, truncated: false, partial: null, evidence: {}, artifacts: [], effect: 'completed', redaction_windows: [] }, 3);
  await assert.rejects(call.dispose(), /the budget store failed/);
  assert.deepEqual(r.log, ['let go k:one', 'slot released', 'budget settled', 'scope left']);
  assert.equal(getEventListeners(client.signal, 'abort').length, 0);
});

test('a task cancel reaches the scope of a running call, and no longer once the call gave it back', async () => {
  const r = recorder();
  const client = new AbortController();
  const running = admitted(r, client.signal);
  const done = admitted(r, new AbortController().signal);
  await done.call.endRun();
  r.running.cancel(TASK);
  assert.equal(running.scope.kind, 'task_cancel');
  assert.equal(abortKindOf(running.scope.signal.reason), 'task_cancel');
  assert.equal(done.scope.kind, null, 'a call that ended is not reached');
  assert.ok(r.running.cancelled(TASK));
  r.running.resume(TASK);
  assert.ok(!r.running.cancelled(TASK));
  await running.call.dispose();
});

test('await using a call gives everything back at the end of its block', async () => {
  const r = recorder();
  const client = new AbortController();
  {
    await using held = admitted(r, client.signal).call;
    assert.equal(held.effectKey, 'k:one');
  }
  assert.deepEqual(r.log, ['let go k:one', 'slot released', 'budget released', 'scope left']);
  assert.equal(getEventListeners(client.signal, 'abort').length, 0);
});
