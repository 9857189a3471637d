import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { envelope, tempDirs } from '../support/fixtures.js';
import { ledgerLines, probeTool } from '../support/probe-tools.js';
import { createRuntime } from '../../src/runtime/index.js';

test('50 concurrent calls with one idempotency key give exactly one execution', async () => {
  const dirs = tempDirs();
  const ledger = join(dirs.base, 'ledger');
  // Five runtimes on one state file (five owners), ten calls each, all at once.
  const runtimes = await Promise.all(Array.from({ length: 5 }, () => createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger })] })));
  try {
    const env = envelope('test.effect', { label: 'once', after_ms: 200 }, { idempotency_key: 'same' });
    const receipts = await Promise.all(runtimes.flatMap((rt) => Array.from({ length: 10 }, () => rt.call(env))));
    assert.deepEqual(ledgerLines(ledger), ['once']);
    const succeeded = receipts.filter((r) => r.status === 'succeeded' && !r.replay);
    assert.equal(succeeded.length, 1);
    const others = receipts.filter((r) => r !== succeeded[0]);
    assert.ok(others.every((r) => r.error?.code === 'effect_in_progress' || r.replay), 'every other call is in progress or a replay');
    // After it completes, the key replays the stored receipt.
    const replay = await runtimes[0]!.call(env);
    assert.equal(replay.replay, true);
    assert.equal(replay.receipt_id, succeeded[0]?.receipt_id);
    assert.equal(replay.digest, succeeded[0]?.digest);
  } finally {
    for (const rt of runtimes) await rt.close();
    dirs.cleanup();
  }
});

test('the same key with different arguments is idempotency_conflict and runs nothing', async () => {
  const dirs = tempDirs();
  const ledger = join(dirs.base, 'ledger');
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger })] });
  try {
    assert.equal((await rt.call(envelope('test.effect', { label: 'a' }, { idempotency_key: 'k' }))).status, 'succeeded');
    const r = await rt.call(envelope('test.effect', { label: 'b' }, { idempotency_key: 'k' }));
    assert.equal(r.error?.code, 'idempotency_conflict');
    assert.deepEqual(ledgerLines(ledger), ['a']);
  } finally {
    await rt.close();
    dirs.cleanup();
  }
});

/** Runs a runtime in a child process that calls the probe and reports on stdout. */
function childRuntime(dirs: { workspace: string; state: string }, ledger: string, label: string, afterMs: number, key: { idempotency_key?: string; logical_effect_id?: string }) {
  const script = `
    import { createRuntime } from ${JSON.stringify(join(process.cwd(), 'src/runtime/index.ts'))};
    import { probeTool } from ${JSON.stringify(join(process.cwd(), 'test/support/probe-tools.ts'))};
    const rt = await createRuntime({ workspace: ${JSON.stringify(dirs.workspace)}, stateDir: ${JSON.stringify(dirs.state)}, tools: [probeTool({ ledger: ${JSON.stringify(ledger)} })] });
    const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 'task-1', tool: 'test.effect', arguments: { label: ${JSON.stringify(label)}, after_ms: ${afterMs} }, ...${JSON.stringify(key)} });
    process.stdout.write('RECEIPT ' + r.receipt_id + '\\n');
    setInterval(() => {}, 1000); // a worker that never returns its answer
  `;
  const file = join(dirs.workspace, '..', `child-${label}.mts`);
  writeFileSync(file, script);
  return spawn(process.execPath, ['--import', 'tsx', file], { stdio: ['ignore', 'pipe', 'inherit'] });
}

async function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a runtime killed with SIGKILL after sent: the retry reconciles the record and recovers the receipt, not re-executed', async () => {
  const dirs = tempDirs();
  const ledger = join(dirs.base, 'ledger');
  const child = childRuntime(dirs, ledger, 'crash', 60_000, { idempotency_key: 'k-crash' });
  try {
    await waitFor(() => ledgerLines(ledger).includes('crash'), 20_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger })] });
    try {
      assert.deepEqual((await rt.listUnsettled()).map((e) => [e.effect_key, e.state, e.owner_alive]), [['k:k-crash', 'sent', false]]);
      const r = await rt.call(envelope('test.effect', { label: 'crash', after_ms: 60_000 }, { idempotency_key: 'k-crash' }));
      assert.equal(r.status, 'succeeded');
      assert.equal((r.evidence['reconciliation'] as { settled: string }).settled, 'completed');
      assert.deepEqual(ledgerLines(ledger), ['crash'], 'not retried blindly');
      const again = await rt.call(envelope('test.effect', { label: 'crash', after_ms: 60_000 }, { idempotency_key: 'k-crash' }));
      assert.equal(again.replay, true);
      assert.equal(again.receipt_id, r.receipt_id);
      assert.deepEqual(await rt.listUnsettled(), []);
    } finally {
      await rt.close();
    }
  } finally {
    child.kill('SIGKILL');
    dirs.cleanup();
  }
});

test('worker loss after success: the receipt is recovered by logical effect id, not re-executed', async () => {
  const dirs = tempDirs();
  const ledger = join(dirs.base, 'ledger');
  const child = childRuntime(dirs, ledger, 'done', 0, { logical_effect_id: 'effect-42' });
  try {
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('RECEIPT '), 20_000);
    child.kill('SIGKILL'); // the worker dies before anyone read its answer
    await new Promise((r) => child.once('exit', r));
    const id = /RECEIPT (\S+)/.exec(out)?.[1];
    const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [probeTool({ ledger })] });
    try {
      const r = await rt.call(envelope('test.effect', { label: 'done', after_ms: 0 }, { logical_effect_id: 'effect-42' }));
      assert.equal(r.replay, true);
      assert.equal(r.receipt_id, id);
      assert.equal(r.status, 'succeeded');
      assert.deepEqual(ledgerLines(ledger), ['done']);
    } finally {
      await rt.close();
    }
  } finally {
    child.kill('SIGKILL');
    dirs.cleanup();
  }
});
