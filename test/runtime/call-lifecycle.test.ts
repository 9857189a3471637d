// Whatever way a call ends, it gives back what it acquired: the concurrency slot, the budget
// reservation, its scope (the client signal's listener, its place among the task's running
// calls) and its hold on the effect record. A real runtime, a real SQLite store, concurrency 1:
// a slot that was not given back makes the next call wait until its deadline. (The hold on the
// effect record matters when the commit fails: test/store/store-failure.test.ts, whose retry
// recovers the receipt only if the failed call let go of its record.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { join } from 'node:path';
import { z } from 'zod';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { defineTool, type AnyTool } from '../../src/registry/index.js';
import { abortKindOf, type TaskId } from '../../src/protocol/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { ledgerLines, probeTool } from '../support/probe-tools.js';

const PERMIT_TESTS = `
  @id("tests") permit (principal, action, resource);`;

/** Tasks whose `test.reason` call is executing (waiting for its signal). */
const reasonRunning = new Set<string>();

/** `test.reason`: waits for its signal to abort, then answers with what the abort reason says. */
function reasonTool(timeoutMs = 30_000): AnyTool {
  return defineTool({
    name: timeoutMs === 30_000 ? 'test.reason' : 'test.reason-timeout',
    version: '1.0.0',
    description: 'reports its abort reason',
    owner: 'tests',
    effect_class: 'read',
    reversible: true,
    capabilities: [],
    args: z.strictObject({}),
    result: z.strictObject({ name: z.string(), kind: z.string().nullable(), dom: z.boolean() }),
    timeout_ms: timeoutMs,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: (ctx) =>
      new Promise((resolve) => {
        reasonRunning.add(ctx.task_id);
        const answer = (): void => {
          const reason: unknown = ctx.signal.reason;
          resolve({ status: 'succeeded', result: { name: (reason as Error).name, kind: abortKindOf(reason), dom: reason instanceof DOMException } });
        };
        if (ctx.signal.aborted) answer();
        else ctx.signal.addEventListener('abort', answer, { once: true });
      }),
  }) as unknown as AnyTool;
}

async function setup(concurrency = 1) {
  const dirs = tempDirs('tg-call');
  const ledger = join(dirs.base, 'ledger');
  const rt = await createRuntime({
    workspace: dirs.workspace,
    stateDir: dirs.state,
    concurrency,
    // A keyed call's client cancel stops its effect once no call re-attached within this (attach.ts).
    detachGraceMs: 200,
    grant: { tools: ['*'], effects: ['read', 'write'], read: ['**'], write: ['**'], budget: { calls: 2 } },
    policies: [{ name: 'tests.cedar', text: PERMIT_TESTS }],
    tools: [probeTool({ ledger }), probeTool({ ledger, name: 'test.slow-start', timeout_ms: 150 }), reasonTool(), reasonTool(150), ...builtinTools()],
  });
  return { rt, ledger, done: async () => { await rt.close(); dirs.cleanup(); } };
}

/** Waits (bounded, generously: the machine may be loaded) until `ready` holds; a fixed sleep was too short at load 20. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (const stop = Date.now() + 60_000; !ready(); await new Promise((r) => setTimeout(r, 10))) {
    if (Date.now() > stop) throw new Error(`timed out waiting until ${what}`);
  }
}

const soon = (ms: number): string => new Date(Date.now() + ms).toISOString();

/** What the call gave back: no listener left on the client's signal, no budget reserved, the slot free. */
async function assertGivenBack(rt: Runtime, client: AbortController, task: string, what: string): Promise<void> {
  assert.equal(getEventListeners(client.signal, 'abort').length, 0, `${what}: the scope removed its listener`);
  assert.equal((await rt.policy.budgets.usage(task as TaskId)).calls.reserved, 0, `${what}: no budget left reserved`);
  assert.ok((await rt.listUnsettled()).every((e) => !e.owner_alive), `${what}: no effect record held by a call that ended`);
  // With concurrency 1 a slot not given back makes this wait until its deadline (expired).
  const next = await rt.call(envelope('test.effect', { label: `after ${what}` }, { task_id: `next-${task}`, deadline: soon(20_000) }));
  assert.equal(next.status, 'succeeded', `${what}: the slot was free (${JSON.stringify(next.error)})`);
}

test('however a call ends, its slot, budget reservation, scope and effect record are given back', async () => {
  const p = await setup();
  try {
    const cases: { what: string; task: string; run: (client: AbortController) => Promise<void> }[] = [
      {
        what: 'success',
        task: 'ok',
        run: async (client) => {
          const r = await p.rt.call(envelope('test.effect', { label: 'ok' }, { task_id: 'ok', idempotency_key: 'ok' }), { signal: client.signal });
          assert.equal(r.status, 'succeeded');
        },
      },
      {
        what: 'a deadline already past at admission',
        task: 'late',
        run: async (client) => {
          const r = await p.rt.call(envelope('test.effect', { label: 'late' }, { task_id: 'late', deadline: soon(-1) }), { signal: client.signal });
          assert.equal(r.error?.code, 'deadline_expired');
          assert.equal(r.error?.data['phase'], 'admission');
        },
      },
      {
        what: 'an exhausted budget',
        task: 'spent',
        run: async (client) => {
          for (const label of ['s1', 's2']) assert.equal((await p.rt.call(envelope('test.effect', { label }, { task_id: 'spent' }))).status, 'succeeded');
          const r = await p.rt.call(envelope('test.effect', { label: 's3' }, { task_id: 'spent' }), { signal: client.signal });
          assert.equal(r.error?.code, 'budget_exhausted');
        },
      },
      {
        what: 'a deadline passed in the queue, and a cancel in the queue',
        task: 'queued',
        run: async (client) => {
          const holder = new AbortController();
          const slow = p.rt.call(envelope('test.reason', {}, { task_id: 'holder' }), { signal: holder.signal });
          await until(() => p.rt.load.active === 1, 'the holder has the only slot');
          const expired = await p.rt.call(envelope('test.effect', { label: 'q1' }, { task_id: 'queued', deadline: soon(150) }), { signal: client.signal });
          assert.equal(expired.error?.code, 'deadline_expired');
          assert.equal(expired.error?.data['phase'], 'queue');
          const cancelled = p.rt.call(envelope('test.effect', { label: 'q2' }, { task_id: 'queued' }), { signal: client.signal });
          await until(() => p.rt.load.queued === 1, 'q2 waits in the queue');
          client.abort();
          const c = await cancelled;
          assert.equal(c.error?.code, 'cancelled');
          assert.equal(c.error?.data['phase'], 'queue');
          holder.abort();
          assert.equal((await slow).status, 'succeeded');
        },
      },
      {
        what: 'a client cancel after the effect was sent',
        task: 'sent',
        run: async (client) => {
          const pending = p.rt.call(envelope('test.effect', { label: 'sent', after_ms: 5_000 }, { task_id: 'sent', idempotency_key: 'sent' }), { signal: client.signal });
          await until(() => ledgerLines(p.ledger).includes('sent'), 'the effect was sent');
          client.abort();
          const r = await pending;
          assert.equal(r.status, 'cancelled');
          assert.equal((await p.rt.listUnsettled()).filter((e) => e.task_id === 'sent').length, 1, 'the ambiguous record waits for reconcile');
        },
      },
      {
        what: 'a task cancel',
        task: 'cancelled-task',
        run: async (client) => {
          const pending = p.rt.call(envelope('test.effect', { label: 'tc', before_ms: 5_000 }, { task_id: 'cancelled-task' }), { signal: client.signal });
          await until(() => p.rt.load.active === 1, 'the call runs');
          p.rt.cancelTask('cancelled-task');
          const r = await pending;
          assert.equal(r.status, 'cancelled');
          assert.equal(r.error?.data['by'], 'task');
          p.rt.resumeTask('cancelled-task');
        },
      },
      {
        what: "the tool's timeout",
        task: 'timeout',
        run: async (client) => {
          const r = await p.rt.call(envelope('test.slow-start', { label: 'to', before_ms: 5_000 }, { task_id: 'timeout' }), { signal: client.signal });
          assert.equal(r.status, 'timed_out');
        },
      },
    ];
    for (const c of cases) {
      const client = new AbortController();
      await c.run(client);
      await assertGivenBack(p.rt, client, c.task, c.what);
    }
  } finally {
    await p.done();
  }
});

test('a tool reads why its call was aborted from signal.reason: the kind, and the standard name', async () => {
  const p = await setup(4);
  try {
    const client = new AbortController();
    const byClient = p.rt.call(envelope('test.reason', {}, { task_id: 'r1' }), { signal: client.signal });
    const byTask = p.rt.call(envelope('test.reason', {}, { task_id: 'r2' }));
    // A deadline far enough that a loaded machine still reaches execute before it (the cancels
    // below wait for their tools to run: an abort before execute ends the call without the tool).
    const byDeadline = p.rt.call(envelope('test.reason', {}, { task_id: 'r3', deadline: soon(3_000) }));
    const byTimeout = p.rt.call(envelope('test.reason-timeout', {}, { task_id: 'r4' }));
    await until(() => reasonRunning.has('r1'), 'the client-cancelled call runs');
    client.abort();
    await until(() => reasonRunning.has('r2'), 'the task-cancelled call runs');
    p.rt.cancelTask('r2');
    const seen = (await Promise.all([byClient, byTask, byDeadline, byTimeout])).map((r) => r.result);
    assert.deepEqual(seen, [
      { name: 'AbortError', kind: 'client_cancel', dom: true },
      { name: 'AbortError', kind: 'task_cancel', dom: true },
      { name: 'TimeoutError', kind: 'deadline', dom: true },
      { name: 'TimeoutError', kind: 'timeout', dom: true },
    ]);
  } finally {
    await p.done();
  }
});
