// The policy layer through the whole pipeline: the task's stored grant ∧ Cedar policy at the
// authorize stage, budgets at admission and commit, approvals, repeated denials. A probe tool's
// ledger shows whether anything ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync, mkdirSync } from 'node:fs';
import { createRuntime } from '../../src/runtime/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { PolicyLoadError, type TaskGrant } from '../../src/policy/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { ledgerLines, probeTool } from '../support/probe-tools.js';

const PROBE_AND_READS = `
  @id("reads") permit (principal, action == Toolgate::Action::"fs.read", resource is Toolgate::Path);
  @id("probe") permit (principal, action == Toolgate::Action::"test.effect", resource);`;

async function setup(opts: { grant?: TaskGrant; policy?: string; repeatedDenialLimit?: number } = {}) {
  const dirs = tempDirs('tg-policy');
  const ledger = join(dirs.base, 'ledger');
  mkdirSync(join(dirs.workspace, 'docs'));
  mkdirSync(join(dirs.workspace, 'src'));
  writeFileSync(join(dirs.workspace, 'docs', 'a.md'), 'docs\n');
  writeFileSync(join(dirs.workspace, 'src', 'a.ts'), 'export {};\n');
  const rt = await createRuntime({
    workspace: dirs.workspace,
    stateDir: dirs.state,
    tools: [probeTool({ ledger }), ...builtinTools()],
    ...(opts.grant ? { grant: opts.grant } : {}),
    ...(opts.policy !== undefined ? { policies: [{ name: 'test.cedar', text: opts.policy }] } : {}),
    ...(opts.repeatedDenialLimit !== undefined ? { repeatedDenialLimit: opts.repeatedDenialLimit } : {}),
  });
  return { rt, ledger, dirs, done: async () => { await rt.close(); dirs.cleanup(); } };
}

test('every receipt carries the effective grant digest and the policy version', async () => {
  const p = await setup();
  try {
    const r = await p.rt.call(envelope('fs.read', { path: 'src/a.ts' }));
    assert.equal(r.status, 'succeeded');
    assert.equal(r.decision?.outcome, 'allow');
    assert.equal(r.decision?.policy_version, p.rt.policy.policyVersion);
    assert.equal(r.decision?.grant_digest, (await p.rt.policy.grantFor(r.task_id)).digest);
  } finally {
    await p.done();
  }
});

test('a forbid in the policy set denies with its id and the policy version, and the tool does not run', async () => {
  const p = await setup({ policy: PROBE_AND_READS + '\n@id("no-docs") forbid (principal, action, resource is Toolgate::Path) when { resource.path like "docs/*" };' });
  try {
    const denied = await p.rt.call(envelope('fs.read', { path: 'docs/a.md' }));
    assert.equal(denied.status, 'denied');
    assert.equal(denied.error?.code, 'policy_denied');
    assert.deepEqual(denied.error?.data['determining'], ['no-docs']);
    assert.equal(denied.error?.data['policy_version'], p.rt.policy.policyVersion);
    assert.equal(denied.result, null);
    assert.equal((await p.rt.call(envelope('fs.read', { path: 'src/a.ts' }))).status, 'succeeded');
  } finally {
    await p.done();
  }
});

test('approval_required until approved; the approved retry runs, a different call asks again', async () => {
  const p = await setup({ policy: PROBE_AND_READS.replace('@id("probe")', '@id("probe") @approval("required")') });
  try {
    const first = await p.rt.call(envelope('test.effect', { label: 'deploy-1' }));
    assert.equal(first.status, 'denied');
    assert.equal(first.error?.code, 'approval_required');
    const id = first.error?.data['approval_id'] as string;
    assert.deepEqual((await p.rt.approvals.list({ status: 'pending' }, Date.now())).map((a) => a.id), [id]);
    assert.deepEqual(ledgerLines(p.ledger), []);

    await p.rt.approvals.approve(id, 'alice', Date.now());
    const retry = await p.rt.call(envelope('test.effect', { label: 'deploy-1' }));
    assert.equal(retry.status, 'succeeded');
    assert.deepEqual(ledgerLines(p.ledger), ['deploy-1']);

    const other = await p.rt.call(envelope('test.effect', { label: 'deploy-2' }));
    assert.equal(other.error?.code, 'approval_required');
    assert.notEqual(other.error?.data['approval_id'], id);
    assert.deepEqual(ledgerLines(p.ledger), ['deploy-1']);
  } finally {
    await p.done();
  }
});

test('budget: the call past the grant budget is budget_exhausted without running; usage is settled at commit', async () => {
  const p = await setup({ policy: PROBE_AND_READS, grant: { tools: ['*'], effects: ['read', 'write'], read: ['**'], budget: { calls: 2 } } });
  try {
    assert.equal((await p.rt.call(envelope('test.effect', { label: 'a' }))).status, 'succeeded');
    assert.equal((await p.rt.call(envelope('test.effect', { label: 'b' }))).status, 'succeeded');
    const third = await p.rt.call(envelope('test.effect', { label: 'c' }));
    assert.equal(third.status, 'denied');
    assert.equal(third.error?.code, 'budget_exhausted');
    assert.equal(third.error?.data['dimension'], 'calls');
    assert.deepEqual(ledgerLines(p.ledger), ['a', 'b']);
    const usage = await p.rt.policy.budgets.usage(third.task_id);
    assert.deepEqual(usage.calls, { used: 2, reserved: 0 });
    assert.equal(usage.wall_ms.reserved, 0);
    // another task has its own budget
    assert.equal((await p.rt.call(envelope('test.effect', { label: 'd' }, { task_id: 'task-2' }))).status, 'succeeded');
  } finally {
    await p.done();
  }
});

test('repeated_denial after N identical denials in a task, without reaching the tool', async () => {
  const p = await setup({ policy: '@id("reads") permit (principal, action == Toolgate::Action::"fs.read", resource);', repeatedDenialLimit: 2 });
  try {
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) codes.push((await p.rt.call(envelope('test.effect', { label: 'loop' }))).error?.code);
    assert.deepEqual(codes, ['policy_denied', 'policy_denied', 'repeated_denial', 'repeated_denial']);
    assert.deepEqual(ledgerLines(p.ledger), []);
  } finally {
    await p.done();
  }
});

test('a policy that fails strict validation stops the runtime from starting, and the state dir stays usable', async () => {
  const dirs = tempDirs('tg-policy');
  try {
    await assert.rejects(
      () => createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, policies: [{ name: 'bad.cedar', text: 'permit (principal, action, resource) when { resource.nope == 1 };' }] }),
      (e: unknown) => PolicyLoadError.isInstance(e),
    );
    const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state });
    await rt.close();
  } finally {
    dirs.cleanup();
  }
});

test('bytes budgets: bytes handed back by reads and bytes written are settled, and refuse the next call that needs them', async () => {
  const p = await setup({ grant: { tools: ['fs.*'], effects: ['read', 'write'], read: ['**'], write: ['**'], budget: { bytes_read: 50, bytes_written: 10 } } });
  try {
    writeFileSync(join(p.dirs.workspace, 'src', 'big.txt'), 'x'.repeat(200));
    assert.equal((await p.rt.call(envelope('fs.read', { path: 'src/big.txt' }))).status, 'succeeded');
    const usage = await p.rt.policy.budgets.usage('task-1' as never);
    assert.ok(usage.bytes_read.used > 200, `bytes_read used ${usage.bytes_read.used}`);
    const second = await p.rt.call(envelope('fs.read', { path: 'src/a.ts' }));
    assert.equal(second.error?.code, 'budget_exhausted');
    assert.equal(second.error?.data['dimension'], 'bytes_read');

    const w = await p.rt.call(envelope('fs.write', { path: 'src/out.txt', content: 'y'.repeat(100) }, { task_id: 'task-w' }));
    assert.equal(w.status, 'succeeded', JSON.stringify(w.error));
    assert.equal((await p.rt.policy.budgets.usage('task-w' as never)).bytes_written.used, 100);
    const w2 = await p.rt.call(envelope('fs.write', { path: 'src/out2.txt', content: 'z' }, { task_id: 'task-w' }));
    assert.equal(w2.error?.code, 'budget_exhausted');
    assert.equal(w2.error?.data['dimension'], 'bytes_written');
    // a read in the same task is not refused for written bytes
    assert.equal((await p.rt.call(envelope('fs.read', { path: 'src/a.ts' }, { task_id: 'task-w' }))).status, 'succeeded');
  } finally {
    await p.done();
  }
});
