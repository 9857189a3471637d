import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  bindGrant,
  CedarPolicySet,
  CompiledGrant,
  decisionError,
  GrantFileError,
  parseGrantFile,
  PolicyAuthorizer,
  type GrantSubject,
  type PolicyDecision,
  type TaskGrant,
} from '../../src/policy/index.js';
import { grantJsonSchema } from '../../src/policy/grant-schema.js';
import type { NormalizedAction } from '../../src/protocol/index.js';
import { A1, A2, act, fetchOf, NOW, pushOf, readOf, stateFile, T1, T2, testRegistry, writeOf } from './fixtures.js';

const state = stateFile();
after(() => state.dispose());
const permitAll = CedarPolicySet.load(testRegistry().manifest, [{ name: 'all.cedar', text: '@id("all") permit (principal, action, resource);' }]);
const authorizer = new PolicyAuthorizer({ policy: permitAll, stores: state.stores });
const subject: GrantSubject = { tenant: 'acme', principal: 'agent', task_id: T1, attempt_id: null, cancellation_epoch: 0 };
const ALL: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'network', 'publish'], read: ['**'], write: ['**'], hosts: ['*'], refs: ['**'] };

async function decide(spec: TaskGrant, action: NormalizedAction, call: Partial<Parameters<PolicyAuthorizer['authorize']>[2]> = {}, s: GrantSubject = subject): Promise<PolicyDecision> {
  return await authorizer.authorize(action, new CompiledGrant(bindGrant(spec, s)), { task_id: T1, attempt_id: A1, now: NOW, ...call });
}

function assertDenied(d: PolicyDecision, id: string): void {
  assert.equal(d.outcome, 'deny', `expected a denial by ${id}`);
  assert.equal(d.code, 'policy_denied');
  assert.deepEqual(d.determining, [id]);
  assert.equal(d.reasons.length, 1);
  assert.equal(d.policy_version, permitAll.version);
  assert.equal(decisionError(d)?.code, 'policy_denied');
}

describe('capability grant: each dimension denies outside its bounds', () => {
  it('an empty grant file grants nothing', async () => {
    const d = await decide({}, readOf('README.md'));
    assert.equal(d.code, 'policy_denied');
    assert.deepEqual([...d.determining].sort(), ['grant.effects', 'grant.read', 'grant.tools']);
  });

  it('what: tools outside the tool globs are denied', async () => {
    assertDenied(await decide({ ...ALL, tools: ['fs.read'] }, writeOf('a.txt')), 'grant.tools');
    assert.equal((await decide({ ...ALL, tools: ['fs.*'] }, writeOf('a.txt'))).outcome, 'allow');
  });

  it('what: effect classes outside the grant are denied', async () => {
    assertDenied(await decide({ ...ALL, effects: ['read'] }, writeOf('a.txt')), 'grant.effects');
  });

  it('where: read and write path globs are separate', async () => {
    const spec = { ...ALL, read: ['src/**'], write: ['out/**'] };
    assertDenied(await decide(spec, readOf('docs/a.md')), 'grant.read');
    assert.equal((await decide(spec, readOf('src/deep/a.ts'))).outcome, 'allow');
    assertDenied(await decide(spec, writeOf('src/a.ts')), 'grant.write');
    assert.equal((await decide(spec, writeOf('out/a.ts'))).outcome, 'allow');
  });

  it('where: hosts outside the host globs (and ports) are denied', async () => {
    const spec = { ...ALL, hosts: ['api.example.com:443', '*.npmjs.org'] };
    assertDenied(await decide(spec, fetchOf('evil.example.net')), 'grant.hosts');
    assertDenied(await decide(spec, fetchOf('api.example.com', 80)), 'grant.hosts');
    assert.equal((await decide(spec, fetchOf('API.example.com', 443))).outcome, 'allow');
    assert.equal((await decide(spec, fetchOf('registry.npmjs.org', 8443))).outcome, 'allow');
  });

  it('where: git refs outside the ref globs are denied', async () => {
    const spec = { ...ALL, refs: ['refs/heads/fix/*'] };
    assertDenied(await decide(spec, pushOf('refs/heads/main')), 'grant.refs');
    assert.equal((await decide(spec, pushOf('refs/heads/fix/flaky'))).outcome, 'allow');
  });

  it('when: before not_before, at or after expires_at and after the deadline are denied', async () => {
    assertDenied(await decide({ ...ALL, not_before: '2026-12-02T10:00:01Z' }, readOf('a')), 'grant.not_before');
    assertDenied(await decide({ ...ALL, expires_at: '2026-12-02T10:00:00Z' }, readOf('a')), 'grant.expires_at');
    assertDenied(await decide({ ...ALL, deadline: '2026-12-02T09:59:59Z' }, readOf('a')), 'grant.deadline');
    assert.equal((await decide({ ...ALL, not_before: '2026-12-02T10:00:00Z', expires_at: '2026-12-02T10:00:01Z' }, readOf('a'))).outcome, 'allow');
  });

  it('who: a grant issued to another task is refused', async () => {
    const d = await decide(ALL, readOf('a'), { task_id: T2 });
    assertDenied(d, 'grant.subject.task_id');
    assert.match(d.reasons[0] ?? '', /bound to task task_one, not task_two/);
  });

  it('who: a grant bound to one attempt is refused to another attempt of the same task', async () => {
    const bound = { ...subject, attempt_id: A1 };
    assert.equal((await decide(ALL, readOf('a'), { attempt_id: A1 }, bound)).outcome, 'allow');
    assertDenied(await decide(ALL, readOf('a'), { attempt_id: A2 }, bound), 'grant.subject.attempt_id');
  });

  it('when: a grant from before a task cancellation is refused', async () => {
    assertDenied(await decide(ALL, readOf('a'), { cancellation_epoch: 1 }), 'grant.subject.cancellation_epoch');
  });

  it('conditions: required revision, environment and policy version must hold', async () => {
    assertDenied(await decide({ ...ALL, conditions: { required_revision: 'r7' } }, readOf('a'), { revision: 'r8' }), 'grant.conditions.required_revision');
    assert.equal((await decide({ ...ALL, conditions: { required_revision: 'r7' } }, readOf('a'), { revision: 'r7' })).outcome, 'allow');
    assertDenied(await decide({ ...ALL, conditions: { environment: 'ci' } }, readOf('a')), 'grant.conditions.environment');
    assertDenied(await decide({ ...ALL, conditions: { policy_version: 'sha256:old' } }, readOf('a')), 'grant.conditions.policy_version');
    assert.equal((await decide({ ...ALL, conditions: { policy_version: permitAll.version } }, readOf('a'))).outcome, 'allow');
  });

  it('conditions: effect classes listed in approval_required ask instead of allowing', async () => {
    const d = await decide({ ...ALL, approval_required: ['write'] }, writeOf('b.txt'));
    assert.equal(d.outcome, 'ask');
    assert.equal(d.code, 'approval_required');
    assert.deepEqual(d.determining, ['grant.approval_required']);
    assert.ok(d.approval_id);
    assert.equal(decisionError(d)?.code, 'approval_required');
  });

  it('every resource of a call must be covered', async () => {
    const both = act('fs.write', 'write', [
      { kind: 'path', path: 'src/a', access: 'read' },
      { kind: 'path', path: 'secret/b', access: 'write' },
    ]);
    assertDenied(await decide({ ...ALL, write: ['src/**'] }, both), 'grant.write');
  });
});

describe('grant file', () => {
  it('rejects unknown fields and wrong types with JSON pointers', async () => {
    assert.throws(
      () => parseGrantFile({ tools: ['*'], network: true }),
      (e: unknown) => e instanceof GrantFileError && e.faults.some((f) => f.pointer === '/network' && f.message === 'unknown field'),
    );
    assert.throws(
      () => parseGrantFile({ effects: ['teleport'] }),
      (e: unknown) => e instanceof GrantFileError && e.faults[0]?.pointer === '/effects/0',
    );
    assert.throws(() => parseGrantFile({ budget: { calls: -1 } }), GrantFileError);
    assert.throws(() => parseGrantFile({ expires_at: 'tomorrow' }), GrantFileError);
  });

  it('reads a complete grant file', async () => {
    const g = parseGrantFile({
      $schema: '../schemas/grant.schema.json',
      tools: ['fs.*'],
      effects: ['read'],
      read: ['**'],
      write: [],
      hosts: [],
      refs: [],
      not_before: '2026-01-01T00:00:00Z',
      expires_at: '2027-01-01T00:00:00Z',
      budget: { calls: 100, bytes_read: 1_000_000, bytes_written: 0, cpu_ms: 1000, wall_ms: 60_000, cost: 5, calls_per_minute: 30 },
      approval_required: ['network'],
    });
    assert.equal(g.budget?.calls_per_minute, 30);
    assert.equal('$schema' in g, false);
  });

  it('schemas/grant.schema.json is the schema the parser enforces', async () => {
    const shipped = JSON.parse(readFileSync(new URL('../../schemas/grant.schema.json', import.meta.url), 'utf8')) as unknown;
    assert.deepEqual(shipped, grantJsonSchema());
  });

  it('the grant digest changes with the subject: a grant is bound to its task', async () => {
    const a = new CompiledGrant(bindGrant(ALL, subject));
    const b = new CompiledGrant(bindGrant(ALL, { ...subject, task_id: T2 }));
    assert.notEqual(a.digest, b.digest);
    assert.equal(a.digest, new CompiledGrant(bindGrant({ ...ALL, tools: ['*', '*'] }, subject)).digest);
  });
});
