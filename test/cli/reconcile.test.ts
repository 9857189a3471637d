// Item 10 of issue 10: an interrupted keyed shell.exec answered reconciliation_required forever
// and nothing could settle it. The built CLI lists it with its age and settles it by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime, type TaskGrant } from '../../src/runtime/index.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');
const CHILD = fileURLToPath(new URL('./shell-child.ts', import.meta.url));
const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] };

function cli(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function stateOf(state: string): string | undefined {
  if (!existsSync(join(state, 'toolgate.db'))) return undefined;
  const db = new Database(join(state, 'toolgate.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT state FROM effects WHERE effect_key = 'k:deploy-1'`).get() as { state: string } | undefined)?.state;
  } catch {
    return undefined;
  } finally {
    db.close();
  }
}

test('an interrupted keyed shell.exec is listed with its age and settled by an operator, reason in the receipt', async () => {
  const d = tempDirs();
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, d.workspace, d.state], { stdio: ['ignore', 'inherit', 'inherit'] });
  try {
    const end = Date.now() + 30_000;
    while (!(stateOf(d.state) === 'sent' && existsSync(join(d.workspace, 'started.txt')))) {
      assert.ok(Date.now() < end, 'the shell.exec started');
      await new Promise((r) => setTimeout(r, 50));
    }
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    const listed = cli(['reconcile', '--list', '--json', '--workspace', d.workspace, '--state-dir', d.state], d.workspace);
    assert.equal(listed.code, 1, 'an unsettled effect exits 1');
    const rows = JSON.parse(listed.out) as { effect_key: string; state: string; owner_alive: boolean; age_ms: number; tool: string }[];
    assert.deepEqual(rows.map((r) => [r.effect_key, r.state, r.owner_alive, r.tool]), [['k:deploy-1', 'sent', false, 'shell.exec']]);
    assert.ok(rows[0]!.age_ms >= 0);
    assert.match(cli(['reconcile', '--list', '--workspace', d.workspace, '--state-dir', d.state], d.workspace).out, /k:deploy-1\tshell\.exec@[\d.]+\tsent, its runtime is gone\tage \d+s/);

    // reconcile() cannot tell what the command did: it stays for an operator.
    const auto = cli(['reconcile', '--json', '--workspace', d.workspace, '--state-dir', d.state], d.workspace);
    assert.equal(auto.code, 1);
    assert.equal((JSON.parse(auto.out) as { entries: { settled: string }[] }).entries[0]?.settled, 'unknown');
    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT });
    try {
      const refused = await rt.call(envelope('shell.exec', { shell: 'sh', script: 'echo started > started.txt; sleep 1000' }, { task_id: 'ops', idempotency_key: 'deploy-1' }));
      assert.equal(refused.error?.code, 'reconciliation_required');
    } finally {
      await rt.close();
    }

    assert.equal(cli(['reconcile', 'deploy-1', '--settle', 'completed', '--workspace', d.workspace, '--state-dir', d.state], d.workspace).code, 2, '--reason is required');
    const settled = cli(['reconcile', 'deploy-1', '--settle', 'completed', '--reason', 'checked the deploy log by hand', '--json', '--workspace', d.workspace, '--state-dir', d.state], d.workspace);
    assert.equal(settled.code, 0, settled.err);
    const receipt = JSON.parse(settled.out) as { receipt_id: string; status: string; evidence: { reconciliation: { by: string; reason: string; settled: string } } };
    assert.equal(receipt.status, 'succeeded');
    assert.deepEqual([receipt.evidence.reconciliation.by, receipt.evidence.reconciliation.settled, receipt.evidence.reconciliation.reason], ['operator', 'completed', 'checked the deploy log by hand']);
    assert.equal(cli(['reconcile', '--list', '--workspace', d.workspace, '--state-dir', d.state], d.workspace).code, 0, 'nothing left to settle');

    const rt2 = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT });
    try {
      const replay = await rt2.call(envelope('shell.exec', { shell: 'sh', script: 'echo started > started.txt; sleep 1000' }, { task_id: 'ops', idempotency_key: 'deploy-1' }));
      assert.equal(replay.replay, true);
      assert.equal(replay.receipt_id, receipt.receipt_id);
    } finally {
      await rt2.close();
    }
    assert.equal(cli(['audit', 'verify', '--workspace', d.workspace, '--state-dir', d.state], d.workspace).code, 0);
  } finally {
    child.kill('SIGKILL');
    d.cleanup();
  }
});
