import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bindGrant, CedarPolicySet, CompiledGrant, decisionError, PolicyAuthorizer } from '../../src/policy/index.js';
import { A1, NOW, readOf, stateFile, T1, T2, testRegistry } from './fixtures.js';

const manifest = testRegistry().manifest;
const policy = CedarPolicySet.load(manifest, [{ name: 'p.cedar', text: '@id("src-only") permit (principal, action, resource is Toolgate::Path) when { resource.path like "src/*" };' }]);
const grantFor = (task = T1) => new CompiledGrant(bindGrant({ tools: ['*'], effects: ['read'], read: ['**'] }, { tenant: 'a', principal: 'p', task_id: task, attempt_id: null, cancellation_epoch: 0 }));

describe('repeated denials', () => {
  const state = stateFile();
  after(() => state.dispose());

  it('after N denials of the same normalized action in a task, identical calls get repeated_denial', async () => {
    const authorizer = new PolicyAuthorizer({ policy, stores: state.stores, repeatedDenialLimit: 3 });
    const call = { task_id: T1, attempt_id: A1, now: NOW };
    const codes: (string | null)[] = [];
    for (let i = 0; i < 5; i++) codes.push((await authorizer.authorize(readOf('docs/secret-plan.md'), grantFor(), call)).code);
    assert.deepEqual(codes, ['policy_denied', 'policy_denied', 'policy_denied', 'repeated_denial', 'repeated_denial']);
    const d = await authorizer.authorize(readOf('docs/secret-plan.md'), grantFor(), call);
    assert.equal(decisionError(d)?.code, 'repeated_denial');
    assert.equal(d.determining[0], 'policy.repeated_denial');
    // a different action, or the same action in another task, starts its own count
    assert.equal((await authorizer.authorize(readOf('docs/other.md'), grantFor(), call)).code, 'policy_denied');
    assert.equal((await authorizer.authorize(readOf('docs/secret-plan.md'), grantFor(T2), { ...call, task_id: T2 })).code, 'policy_denied');
    // allowed actions are unaffected
    assert.equal((await authorizer.authorize(readOf('src/a.ts'), grantFor(), call)).outcome, 'allow');
  });

  it('counts survive a restart', async () => {
    const reopened = state.reopen();
    try {
      const authorizer = new PolicyAuthorizer({ policy, stores: reopened.stores, repeatedDenialLimit: 3 });
      assert.equal((await authorizer.authorize(readOf('docs/secret-plan.md'), grantFor(), { task_id: T1, attempt_id: A1, now: NOW })).code, 'repeated_denial');
    } finally {
      reopened.close();
    }
  });
});
