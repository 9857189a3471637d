// ApprovalQuestions over a real SQLite state file: what a presented requestState must match
// (signature, expiry, task, request, the recorded ask) and that deciding by id is bound to the
// action digest shown.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { bindGrant, CedarPolicySet, CompiledGrant, ApprovalQuestions, PolicyAuthorizer, type TaskGrant } from '../../src/policy/index.js';
import { ToolgateError, type Digest } from '../../src/protocol/index.js';
import { A1, fetchOf, NOW, stateFile, T1, T2, testRegistry } from './fixtures.js';

const manifest = testRegistry().manifest;
const POLICY = '@id("net") @approval("required") permit (principal, action, resource is Toolgate::Host);';
const GRANT: TaskGrant = { tools: ['*'], effects: ['network'], hosts: ['*'] };

function setup() {
  const state = stateFile();
  const authorizer = new PolicyAuthorizer({ policy: CedarPolicySet.load(manifest, [{ name: 'p.cedar', text: POLICY }]), stores: state.stores, approvalTtlMs: 60_000 });
  const grant = new CompiledGrant(bindGrant(GRANT, { tenant: 'acme', principal: 'agent', task_id: T1, attempt_id: null, cancellation_epoch: 0 }));
  const key = randomBytes(32);
  const questions = new ApprovalQuestions(authorizer.approvals, state.stores.approvals, key, { ttlMs: 10_000 });
  return { state, authorizer, grant, key, questions };
}

function reasonOf(e: unknown): string {
  assert.ok(ToolgateError.isInstance(e), String(e));
  assert.equal(e.code, 'invalid_continuation');
  return (e.data as { reason: string }).reason;
}

describe('approval questions (requestState)', () => {
  const states: { dispose(): void }[] = [];
  after(() => states.forEach((s) => s.dispose()));

  it('redeems once for its own task and request; refuses another task, another request, a second use, another key and a late answer', async () => {
    const { state, authorizer, grant, key, questions } = setup();
    states.push(state);
    const d = await authorizer.authorize(fetchOf('api.example.com'), grant, { task_id: T1, attempt_id: A1, now: NOW });
    const approval = await authorizer.approvals.get(d.approval_id as string);
    assert.ok(approval);
    const { state: rs } = await questions.ask(approval, 'req-1', NOW);
    await assert.rejects(questions.redeem(rs, { task_id: T2, request: 'req-1' }, NOW + 1), (e) => reasonOf(e) === 'request_state_other_task');
    await assert.rejects(questions.redeem(rs, { task_id: T1, request: 'req-2' }, NOW + 1), (e) => reasonOf(e) === 'request_state_other_request');
    const other = new ApprovalQuestions(authorizer.approvals, state.stores.approvals, Buffer.from(key).fill(7));
    await assert.rejects(other.redeem(rs, { task_id: T1, request: 'req-1' }, NOW + 1), (e) => reasonOf(e) === 'request_state_signature');
    await assert.rejects(questions.redeem(rs, { task_id: T1, request: 'req-1' }, NOW + 10_000), (e) => reasonOf(e) === 'request_state_expired');
    // None of the refusals above used it up.
    const ask = await questions.redeem(rs, { task_id: T1, request: 'req-1' }, NOW + 2);
    assert.equal(ask.approval_id, approval.id);
    assert.equal(ask.action_digest, approval.action_digest);
    await assert.rejects(questions.redeem(rs, { task_id: T1, request: 'req-1' }, NOW + 3), (e) => reasonOf(e) === 'request_state_replayed');
    // A store that never recorded the ask (another database under the same key) knows nothing of it.
    const elsewhere = stateFile();
    states.push(elsewhere);
    const { state: rs2 } = await questions.ask(approval, 'req-1', NOW);
    const blind = new ApprovalQuestions(authorizer.approvals, elsewhere.stores.approvals, key);
    await assert.rejects(blind.redeem(rs2, { task_id: T1, request: 'req-1' }, NOW + 1), (e) => reasonOf(e) === 'request_state_unknown');
  });

  it('the question never outlives the approval it asks about', async () => {
    const { state, authorizer, grant, questions } = setup();
    states.push(state);
    const d = await authorizer.authorize(fetchOf('short.example.com'), grant, { task_id: T1, attempt_id: A1, now: NOW });
    const approval = await authorizer.approvals.get(d.approval_id as string);
    assert.ok(approval);
    const { ask } = await questions.ask(approval, 'r', approval.expires_at - 100);
    assert.equal(ask.expires_at, approval.expires_at);
  });

  it('approve and deny by id refuse when the digest shown is not the one the request binds', async () => {
    const { state, authorizer, grant } = setup();
    states.push(state);
    const a = await authorizer.authorize(fetchOf('a.example.com'), grant, { task_id: T1, attempt_id: A1, now: NOW });
    const b = await authorizer.authorize(fetchOf('b.example.com'), grant, { task_id: T1, attempt_id: A1, now: NOW });
    const id = a.approval_id as string;
    for (const decide of [authorizer.approvals.approve.bind(authorizer.approvals), authorizer.approvals.deny.bind(authorizer.approvals)]) {
      await assert.rejects(decide(id, 'alice', NOW + 1, b.action_digest as Digest), (e: unknown) => {
        assert.ok(ToolgateError.isInstance(e));
        assert.equal(e.code, 'precondition_failed');
        assert.deepEqual({ ...e.data, expires_at: undefined }, { approval_id: id, status: 'pending', expires_at: undefined, action_digest: a.action_digest, shown_digest: b.action_digest });
        return true;
      });
    }
    assert.equal((await authorizer.approvals.get(id))?.status, 'pending');
    assert.equal((await authorizer.approvals.approve(id, 'alice', NOW + 1, a.action_digest as Digest)).status, 'approved');
  });
});
