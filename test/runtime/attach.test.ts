// Attaching to a running keyed effect (src/runtime/attach.ts, docs/protocol.md#long-calls), with
// real runtimes on one SQLite state file (two owners, as two hosts of a shared store are): a
// duplicate in the runtime that runs the effect waits for its receipt; one in another runtime is
// effect_in_progress at once; a waiting caller's own deadline or cancel ends only its wait; a
// task cancelled meanwhile runs nothing more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import type { Receipt } from '../../src/protocol/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { ledgerLines, probeTool } from '../support/probe-tools.js';
import { waitFor } from '../support/processes.js';

async function pair(): Promise<{ a: Runtime; b: Runtime; ledger: string; done: () => Promise<void> }> {
  const dirs = tempDirs('tg-attach-rt');
  const ledger = join(dirs.base, 'ledger');
  const open = (): Promise<Runtime> => createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger })] });
  const a = await open();
  const b = await open();
  return {
    a,
    b,
    ledger,
    done: async () => {
      await a.close();
      await b.close();
      dirs.cleanup();
    },
  };
}

/** Settles with the receipt, and says whether it had settled when asked. */
function tracked(p: Promise<Receipt>): { receipt: Promise<Receipt>; settled: () => boolean } {
  let settled = false;
  return { receipt: p.finally(() => (settled = true)), settled: () => settled };
}

test('a duplicate in the same runtime waits and gets the receipt (attached, one execution); in another runtime it is effect_in_progress at once', async () => {
  const p = await pair();
  try {
    const env = envelope('test.effect', { label: 'long', after_ms: 1_500 }, { idempotency_key: 'long-1' });
    const first = tracked(p.a.call(env));
    assert.ok(await waitFor(() => ledgerLines(p.ledger).includes('long'), 10_000), 'the effect started');
    const progress: string[] = [];
    const attached = tracked(p.a.call(env, { onProgress: (x) => void progress.push(x.message ?? '') }));
    const elsewhere = await p.b.call(env);
    assert.equal(elsewhere.error?.code, 'effect_in_progress');
    assert.equal(first.settled(), false, 'the other runtime did not wait for the effect');
    const [r1, r2] = await Promise.all([first.receipt, attached.receipt]);
    assert.equal(r1.status, 'succeeded');
    assert.equal(r1.replay, false);
    assert.equal(r2.receipt_id, r1.receipt_id);
    assert.equal(r2.digest, r1.digest);
    assert.equal(r2.replay, true);
    assert.equal(r2.attached, true);
    assert.deepEqual(ledgerLines(p.ledger), ['long']);
    // Nothing of the wait is left behind: the next call with the key is a plain replay on both.
    for (const rt of [p.a, p.b]) {
      const again = await rt.call(env);
      assert.equal(again.receipt_id, r1.receipt_id);
      assert.equal(again.attached, undefined);
    }
  } finally {
    await p.done();
  }
});

test("a waiting call's own deadline and its client's cancel end its wait only: effect_in_progress, and the effect completes once", async () => {
  const p = await pair();
  try {
    const env = envelope('test.effect', { label: 'slow', after_ms: 2_000 }, { idempotency_key: 'slow-1' });
    const first = p.a.call(env);
    assert.ok(await waitFor(() => ledgerLines(p.ledger).includes('slow'), 10_000), 'the effect started');
    const expired = await p.a.call({ ...env, deadline: new Date(Date.now() + 200).toISOString() });
    assert.equal(expired.error?.code, 'effect_in_progress');
    assert.equal(expired.error?.data['key'], 'k:slow-1');
    const client = new AbortController();
    const cancelled = p.a.call(env, { signal: client.signal });
    setTimeout(() => client.abort(), 100);
    assert.equal((await cancelled).error?.code, 'effect_in_progress');
    const r = await first;
    assert.equal(r.status, 'succeeded');
    assert.deepEqual(ledgerLines(p.ledger), ['slow']);
  } finally {
    await p.done();
  }
});

test('a task cancelled while a call waits for its effect: both end cancelled, the effect is not run again', async () => {
  const p = await pair();
  try {
    const env = envelope('test.effect', { label: 'tc', after_ms: 10_000 }, { idempotency_key: 'tc-1' });
    const first = p.a.call(env);
    assert.ok(await waitFor(() => ledgerLines(p.ledger).includes('tc'), 10_000), 'the effect started');
    const waiting = p.a.call(env);
    await new Promise((r) => setTimeout(r, 100));
    p.a.cancelTask('task-1');
    const [r1, r2] = await Promise.all([first, waiting]);
    assert.equal(r1.status, 'cancelled');
    assert.equal(r2.status, 'cancelled');
    assert.equal(r2.error?.data['by'], 'task');
    assert.deepEqual(ledgerLines(p.ledger), ['tc']);
    p.a.resumeTask('task-1');
  } finally {
    await p.done();
  }
});

test('closing the runtime stops a detached effect at once instead of waiting out the grace (10 minutes here)', { timeout: 60_000 }, async () => {
  const dirs = tempDirs('tg-attach-close');
  const ledger = join(dirs.base, 'ledger');
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger })], detachGraceMs: 600_000 });
  try {
    const client = new AbortController();
    const pending = tracked(rt.call(envelope('test.effect', { label: 'detached', after_ms: 300_000 }, { idempotency_key: 'detached-1' }), { signal: client.signal }));
    assert.ok(await waitFor(() => ledgerLines(ledger).includes('detached'), 10_000), 'the effect started');
    client.abort();
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(pending.settled(), false, 'the effect runs on after its client went');
    await rt.close();
    const r = await pending.receipt;
    assert.equal(r.status, 'cancelled');
  } finally {
    await rt.close();
    dirs.cleanup();
  }
});
