import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bindGrant, CedarPolicySet, CompiledGrant, decisionError, PolicyAuthorizer, type TaskGrant } from '../../src/policy/index.js';
import { ToolgateError } from '../../src/protocol/index.js';
import { A1, fetchOf, NOW, stateFile, T1, T2, testRegistry, writeOf } from './fixtures.js';

const manifest = testRegistry().manifest;
const POLICY = `
  @id("reads") permit (principal, action, resource is Toolgate::Path);
  @id("net") @approval("required") @reason("network needs approval") permit (principal, action, resource is Toolgate::Host);`;
const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'network'], read: ['**'], write: ['**'], hosts: ['*'] };
const subject = (task = T1) => ({ tenant: 'acme', principal: 'agent', task_id: task, attempt_id: null, cancellation_epoch: 0 });
const TTL = 60_000;

function setup(policyText = POLICY) {
  const state = stateFile();
  const make = (text: string, s = state.stores) =>
    new PolicyAuthorizer({ policy: CedarPolicySet.load(manifest, [{ name: 'p.cedar', text }]), stores: s, approvalTtlMs: TTL });
  const authorizer = make(policyText);
  const grant = new CompiledGrant(bindGrant(GRANT, subject()));
  return { state, make, authorizer, grant, call: (now = NOW, task = T1) => ({ task_id: task, attempt_id: A1, now }) };
}

describe('approvals', () => {
  const states: { dispose(): void }[] = [];
  after(() => states.forEach((s) => s.dispose()));

  it('asks once, binds the request, and lets a retry of the same normalized action proceed after approval', async () => {
    const { state, authorizer, grant, call } = setup();
    states.push(state);
    const first = await authorizer.authorize(fetchOf('api.example.com'), grant, call());
    assert.equal(first.code, 'approval_required');
    const id = first.approval_id as string;
    const again = await authorizer.authorize(fetchOf('api.example.com'), grant, call(NOW + 1));
    assert.equal(again.approval_id, id, 'an open request is reused, not duplicated');
    const rec = await authorizer.approvals.get(id);
    assert.equal(rec?.action_digest, first.action_digest);
    assert.equal(rec?.policy_version, authorizer.policyVersion);
    assert.equal(rec?.grant_digest, grant.digest);
    assert.deepEqual(rec?.reasons, ['network needs approval']);

    await authorizer.approvals.approve(id, 'alice', NOW + 2);
    const retry = await authorizer.authorize(fetchOf('api.example.com'), grant, call(NOW + 3));
    assert.equal(retry.outcome, 'allow');
    assert.equal(retry.code, null);
    assert.deepEqual(retry.determining, [`approval:${id}`]);
    assert.equal(decisionError(retry), null);
  });

  it('does not transfer to a different host, different arguments, a changed policy version, another grant or another task', async () => {
    const { state, make, authorizer, grant, call } = setup();
    states.push(state);
    const id = (await authorizer.authorize(fetchOf('api.example.com'), grant, call())).approval_id as string;
    await authorizer.approvals.approve(id, 'alice', NOW);

    const otherHost = await authorizer.authorize(fetchOf('evil.example.com'), grant, call());
    assert.equal(otherHost.code, 'approval_required');
    assert.notEqual(otherHost.approval_id, id);

    const otherPort = await authorizer.authorize(fetchOf('api.example.com', 8443), grant, call());
    assert.equal(otherPort.code, 'approval_required');

    const changedPolicy = make(POLICY + '\n@id("extra") forbid (principal, action, resource is Toolgate::Path) when { resource.path == "x" };');
    assert.notEqual(changedPolicy.policyVersion, authorizer.policyVersion);
    const underNewPolicy = await changedPolicy.authorize(fetchOf('api.example.com'), grant, call());
    assert.equal(underNewPolicy.code, 'approval_required');
    assert.notEqual(underNewPolicy.approval_id, id);

    const narrower = new CompiledGrant(bindGrant({ ...GRANT, read: ['src/**'] }, subject()));
    assert.equal((await authorizer.authorize(fetchOf('api.example.com'), narrower, call())).code, 'approval_required');

    const otherTask = new CompiledGrant(bindGrant(GRANT, subject(T2)));
    assert.equal((await authorizer.authorize(fetchOf('api.example.com'), otherTask, call(NOW, T2))).code, 'approval_required');

    // the approved binding itself still holds
    assert.equal((await authorizer.authorize(fetchOf('api.example.com'), grant, call())).outcome, 'allow');
  });

  it('approvals are bound to the arguments: a different args digest for the same resource needs a new decision', async () => {
    const { state, make, grant, call } = setup();
    states.push(state);
    const authorizer = make('@id("w") @approval("required") permit (principal, action == Toolgate::Action::"fs.write", resource);');
    const id = (await authorizer.authorize(writeOf('src/a.ts', 'one'), grant, call())).approval_id as string;
    await authorizer.approvals.approve(id, 'alice', NOW);
    assert.equal((await authorizer.authorize(writeOf('src/a.ts', 'one'), grant, call())).outcome, 'allow');
    assert.equal((await authorizer.authorize(writeOf('src/a.ts', 'two'), grant, call())).code, 'approval_required');
    assert.equal((await authorizer.authorize(writeOf('src/b.ts', 'one'), grant, call())).code, 'approval_required');
  });

  it('a denied request denies the action with policy_denied', async () => {
    const { state, authorizer, grant, call } = setup();
    states.push(state);
    const id = (await authorizer.authorize(fetchOf('api.example.com'), grant, call())).approval_id as string;
    await authorizer.approvals.deny(id, 'bob', NOW);
    const d = await authorizer.authorize(fetchOf('api.example.com'), grant, call(NOW + 1));
    assert.equal(d.code, 'policy_denied');
    assert.deepEqual(d.determining, [`approval:${id}`]);
    assert.match(d.reasons[0] ?? '', /denied by bob/);
  });

  it('expires: a lapsed request cannot be approved, and an approval stops applying after its time', async () => {
    const { state, authorizer, grant, call } = setup();
    states.push(state);
    const id = (await authorizer.authorize(fetchOf('api.example.com'), grant, call())).approval_id as string;
    await assert.rejects(
      () => authorizer.approvals.approve(id, 'alice', NOW + TTL),
      (e: unknown) => ToolgateError.isInstance(e) && e.code === 'precondition_failed',
    );
    const fresh = await authorizer.authorize(fetchOf('api.example.com'), grant, call(NOW + TTL + 1));
    assert.notEqual(fresh.approval_id, id, 'a new request replaces the lapsed one');
    await authorizer.approvals.approve(fresh.approval_id as string, 'alice', NOW + TTL + 2);
    assert.equal((await authorizer.authorize(fetchOf('api.example.com'), grant, call(NOW + TTL + 3))).outcome, 'allow');
    const after = await authorizer.authorize(fetchOf('api.example.com'), grant, call(NOW + 2 * TTL + 2));
    assert.equal(after.code, 'approval_required');
  });

  it('a decided request cannot be decided again, and an unknown id is not_found', async () => {
    const { state, authorizer, grant, call } = setup();
    states.push(state);
    const id = (await authorizer.authorize(fetchOf('api.example.com'), grant, call())).approval_id as string;
    await authorizer.approvals.deny(id, 'bob', NOW);
    await assert.rejects(() => authorizer.approvals.approve(id, 'alice', NOW), (e: unknown) => ToolgateError.isInstance(e) && e.code === 'precondition_failed');
    await assert.rejects(() => authorizer.approvals.approve('apr_none', 'alice', NOW), (e: unknown) => ToolgateError.isInstance(e) && e.code === 'not_found');
  });

  it('survives a restart: a request made before reopening the state file is listed and can be approved after', async () => {
    const { state, grant, call } = setup();
    states.push(state);
    const before = new PolicyAuthorizer({ policy: CedarPolicySet.load(manifest, [{ name: 'p.cedar', text: POLICY }]), stores: state.stores, approvalTtlMs: TTL });
    const id = (await before.authorize(fetchOf('api.example.com'), grant, call())).approval_id as string;
    const reopened = state.reopen();
    try {
      const afterRestart = new PolicyAuthorizer({ policy: CedarPolicySet.load(manifest, [{ name: 'p.cedar', text: POLICY }]), stores: reopened.stores, approvalTtlMs: TTL });
      const listed = await afterRestart.approvals.list({ status: 'pending' }, NOW);
      assert.deepEqual(listed.map((a) => a.id), [id]);
      assert.equal(listed[0]?.expired, false);
      assert.equal(listed[0]?.action.tool, 'net.fetch');
      await afterRestart.approvals.approve(id, 'alice', NOW + 1);
      assert.equal((await afterRestart.authorize(fetchOf('api.example.com'), grant, call(NOW + 2))).outcome, 'allow');
    } finally {
      reopened.close();
    }
  });
});
