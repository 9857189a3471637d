// The shipped default policy and the three worked examples of docs/policy.md, decided for real.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import {
  bindGrant,
  CedarPolicySet,
  CompiledGrant,
  DEFAULT_GRANT,
  DEFAULT_POLICY_SOURCE,
  parseGrantFile,
  PolicyAuthorizer,
  type PolicyDecision,
  type TaskGrant,
} from '../../src/policy/index.js';
import type { NormalizedAction } from '../../src/protocol/index.js';
import { A1, act, fetchOf, NOW, pushOf, readOf, stateFile, T1, testRegistry, writeOf } from './fixtures.js';

const file = (p: string): string => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');
const manifest = testRegistry().manifest;
const state = stateFile();
after(() => state.dispose());

function decider(grant: TaskGrant, extra: string[] = []) {
  const policy = CedarPolicySet.load(manifest, [DEFAULT_POLICY_SOURCE, ...extra.map((p) => ({ name: p, text: file(p) }))]);
  const authorizer = new PolicyAuthorizer({ policy, stores: state.stores, repeatedDenialLimit: 1000 });
  const compiled = new CompiledGrant(bindGrant(grant, { tenant: 'acme', principal: 'agent', task_id: T1, attempt_id: null, cancellation_epoch: 0 }));
  return {
    authorizer,
    decide: (a: NormalizedAction): Promise<PolicyDecision> => authorizer.authorize(a, compiled, { task_id: T1, attempt_id: A1, now: NOW }),
  };
}

describe('default policy', () => {
  it('is the text of policies/default.cedar', async () => {
    assert.equal(DEFAULT_POLICY_SOURCE.text, file('policies/default.cedar'));
  });

  const { decide } = decider({ ...DEFAULT_GRANT, effects: ['read', 'write', 'execute', 'network', 'delete', 'publish'], hosts: ['*'], refs: ['**'] });

  it('allows reads and writes inside the workspace', async () => {
    assert.equal((await decide(readOf('src/a.ts'))).outcome, 'allow');
    assert.equal((await decide(readOf('.git/HEAD'))).outcome, 'allow');
    assert.equal((await decide(writeOf('src/a.ts'))).outcome, 'allow');
  });

  it('forbids secret paths and writes under .git/', async () => {
    assert.deepEqual((await decide(readOf('config/.env'))).determining, ['default.forbid-secret-paths']);
    assert.deepEqual((await decide(writeOf('.ssh/id_rsa'))).determining, ['default.forbid-secret-paths']);
    assert.deepEqual((await decide(writeOf('.git/config'))).determining, ['default.forbid-git-writes']);
  });

  it('asks for network and irreversible effects', async () => {
    const net = await decide(fetchOf('example.com'));
    assert.equal(net.code, 'approval_required');
    assert.ok(net.determining.includes('default.network-needs-approval'));
    assert.equal((await decide(pushOf('refs/heads/main'))).code, 'approval_required');
    assert.equal((await decide(act('fs.write', 'delete', [{ kind: 'path', path: '/tmp/out', access: 'delete' }]))).code, 'approval_required');
  });

  it('the default grant alone keeps network and irreversible effects out', async () => {
    const plain = decider(DEFAULT_GRANT).decide;
    assert.deepEqual((await plain(fetchOf('example.com'))).determining, ['grant.effects', 'grant.hosts']);
  });
});

describe('worked examples (docs/policy.md)', () => {
  const grant = (name: string): TaskGrant => parseGrantFile(JSON.parse(file(`policies/examples/${name}.grant.json`)));

  it('a read-only reviewer reads and inspects tests, and cannot patch, fetch or push', async () => {
    const { decide } = decider(grant('reviewer'));
    assert.equal((await decide(readOf('src/a.ts'))).outcome, 'allow');
    assert.deepEqual((await decide(writeOf('src/a.ts'))).determining, ['grant.effects', 'grant.tools', 'grant.write']);
    assert.equal((await decide(fetchOf('example.com'))).code, 'policy_denied');
    assert.equal((await decide(pushOf('refs/heads/main'))).code, 'policy_denied');
  });

  it('a CI fixer patches src/ and test/, and nothing else', async () => {
    const { decide } = decider(grant('ci-fixer'));
    assert.equal((await decide(writeOf('src/a.ts'))).outcome, 'allow');
    assert.equal((await decide(writeOf('test/a.test.ts'))).outcome, 'allow');
    assert.deepEqual((await decide(writeOf('.github/workflows/ci.yml'))).determining, ['grant.write']);
    assert.equal((await decide(pushOf('refs/heads/main'))).code, 'policy_denied');
  });

  it('a release publishes a version tag after approval, and never pushes a branch', async () => {
    const { decide, authorizer } = decider(grant('release'), ['policies/examples/release.cedar']);
    const tag = pushOf('refs/tags/v1.2.0');
    const asked = await decide(tag);
    assert.equal(asked.code, 'approval_required');
    await authorizer.approvals.approve(asked.approval_id as string, 'release-manager', NOW);
    assert.equal((await decide(tag)).outcome, 'allow');
    assert.deepEqual((await decide(pushOf('refs/heads/main'))).determining, ['grant.refs']);
    const branchGrant = decider({ ...grant('release'), refs: ['**'] }, ['policies/examples/release.cedar']).decide;
    assert.deepEqual((await branchGrant(pushOf('refs/heads/main'))).determining, ['release.tags-only']);
  });
});
