// Programs as policy sees them: Cedar rules on Toolgate::Program ("no git push", "only pytest
// and npm test", "interpreters need approval"), the grant's `programs`, and what happens to a
// command that cannot be resolved (refused by anything that restricts programs, run otherwise).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { bindGrant, CedarPolicySet, cedarRequestsOf, cedarSchemaOf, CompiledGrant, DEFAULT_POLICY_SOURCE, parseGrantFile, PolicyAuthorizer, type TaskGrant } from '../../src/policy/index.js';
import type { NormalizedAction, ProgramResource, Resource } from '../../src/protocol/index.js';
import { PathClassifier } from '../../src/resources/index.js';
import { A1, act, NOW, stateFile, T1, testRegistry, validatedAgainst } from './fixtures.js';

const manifest = testRegistry().manifest;
const state = stateFile();
after(() => state.dispose());
const subject = { tenant: 'acme', principal: 'agent', task_id: T1, attempt_id: null, cancellation_epoch: 0 };
const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'] };

function program(name: string, args: string[] = [], more: Partial<ProgramResource> = {}): ProgramResource {
  return { kind: 'program', name, path: `/usr/bin/${name}`, args, wrappers: [], is_interpreter: false, runs_code: false, has_network_flags: false, system: true, unresolved: null, ...more };
}
const unresolved = (reason: string): ProgramResource => ({ ...program(''), path: null, unresolved: reason });
const WS: Resource = { kind: 'path', path: '.', access: 'execute' };
const shell = (...programs: ProgramResource[]): NormalizedAction => act('shell.exec', 'execute', [WS, ...programs]);

function decider(policyText: string | null, grant: TaskGrant = GRANT) {
  const sources = policyText === null ? [DEFAULT_POLICY_SOURCE] : [DEFAULT_POLICY_SOURCE, { name: 'programs.cedar', text: policyText }];
  const policy = CedarPolicySet.load(manifest, sources);
  const authorizer = new PolicyAuthorizer({ policy, stores: state.stores, repeatedDenialLimit: 1000 });
  const compiled = new CompiledGrant(bindGrant(grant, subject));
  return async (a: NormalizedAction) => {
    const d = await authorizer.authorize(a, compiled, { task_id: T1, attempt_id: A1, now: NOW });
    return { outcome: d.outcome, determining: d.determining };
  };
}

const NO_GIT_PUSH = `@id("no-git-push")
forbid (principal, action, resource is Toolgate::Program) when { resource.name == "git" && resource.args.contains("push") };`;

const ONLY_TESTS = `@id("only-tests")
forbid (principal, action, resource is Toolgate::Program)
unless { resource.resolved && (resource.name == "pytest" || (resource.name == "npm" && resource.args.contains("test"))) };`;

const INTERPRETERS_ASK = `@id("interpreters-ask")
@approval("required")
permit (principal, action, resource is Toolgate::Program) when { resource.is_interpreter && resource.runs_code };
@id("no-sudo")
forbid (principal, action, resource is Toolgate::Program) when { resource.wrappers.contains("sudo") };`;

describe('Toolgate::Program in Cedar', () => {
  it('a program resource passes Cedar request and entity validation against the generated schema', () => {
    const schema = cedarSchemaOf(manifest);
    for (const r of cedarRequestsOf(shell(program('git', ['push', 'origin']), unresolved('eval')), subject, A1, NOW, new PathClassifier())) {
      const answer = validatedAgainst(schema, r);
      assert.equal(answer.type, 'success', `${r.resource.type} ${r.resource.id}: ${JSON.stringify(answer)}`);
    }
  });

  it('"no git push": git push is denied, git status and pytest are not', async () => {
    const decide = decider(NO_GIT_PUSH);
    assert.deepEqual(await decide(shell(program('git', ['push', 'origin', 'main']))), { outcome: 'deny', determining: ['no-git-push'] });
    assert.equal((await decide(shell(program('git', ['status'])))).outcome, 'allow');
    assert.equal((await decide(shell(program('pytest'), program('git', ['status'])))).outcome, 'allow');
    // One program of the line is enough to deny the line.
    assert.equal((await decide(shell(program('pytest'), program('git', ['push'])))).outcome, 'deny');
  });

  it('"only pytest and npm test": anything else, and anything unresolved, is denied (fail closed)', async () => {
    const decide = decider(ONLY_TESTS);
    assert.equal((await decide(shell(program('pytest', ['-q'])))).outcome, 'allow');
    assert.equal((await decide(shell(program('npm', ['test'])))).outcome, 'allow');
    assert.equal((await decide(shell(program('npm', ['publish'])))).outcome, 'deny');
    assert.equal((await decide(shell(program('pytest'), program('curl', ['x'])))).outcome, 'deny');
    assert.equal((await decide(shell(program('pytest'), unresolved('dynamic_command_name')))).outcome, 'deny');
  });

  it('"interpreters need approval" and "no sudo"', async () => {
    const decide = decider(INTERPRETERS_ASK);
    assert.equal((await decide(shell(program('python3', ['-c', 'x'], { is_interpreter: true, runs_code: true })))).outcome, 'ask');
    assert.equal((await decide(shell(program('python3', ['t.py'], { is_interpreter: true })))).outcome, 'allow');
    assert.equal((await decide(shell(program('apt-get', ['install'], { wrappers: ['sudo'] })))).outcome, 'deny');
  });

  it('a policy set with no rule on programs does not see them: an unresolved command runs as before', async () => {
    const policy = CedarPolicySet.load(manifest, [{ name: 'paths.cedar', text: 'permit (principal, action, resource is Toolgate::Path);' }]);
    assert.equal(policy.restrictsPrograms, false);
    const authorizer = new PolicyAuthorizer({ policy, stores: state.stores });
    const d = await authorizer.authorize(shell(unresolved('eval'), program('curl')), new CompiledGrant(bindGrant(GRANT, subject)), { task_id: T1, attempt_id: A1, now: NOW });
    assert.equal(d.outcome, 'allow', d.reasons.join('; '));
    assert.equal(decider(null) !== undefined && CedarPolicySet.load(manifest, [DEFAULT_POLICY_SOURCE]).restrictsPrograms, true, 'the default policy permits programs by a rule of its own');
  });
});

describe('the grant names programs', () => {
  it('absent: any program, resolved or not; present: only those names, and nothing unresolved', async () => {
    const open = decider(null);
    assert.equal((await open(shell(program('curl'), unresolved('eval')))).outcome, 'allow');

    const narrow = decider(null, { ...GRANT, programs: ['pytest', 'npm', 'git'] });
    assert.equal((await narrow(shell(program('pytest'), program('git', ['status'])))).outcome, 'allow');
    const curl = await narrow(shell(program('pytest'), program('curl')));
    assert.deepEqual(curl, { outcome: 'deny', determining: ['grant.programs'] });
    assert.deepEqual(await narrow(shell(unresolved('source'))), { outcome: 'deny', determining: ['grant.programs'] });
  });
});

describe('the shipped example grants (policies/examples)', () => {
  const grantFile = (name: string): TaskGrant => parseGrantFile(JSON.parse(readFileSync(new URL(`../../policies/examples/${name}.grant.json`, import.meta.url), 'utf8')));

  it('the reviewer runs nothing: any program is refused by its empty program list (and it has no shell tool)', async () => {
    const decide = decider(null, grantFile('reviewer'));
    for (const p of [program('ls'), program('pytest'), unresolved('eval')]) {
      const d = await decide(shell(p));
      assert.equal(d.outcome, 'deny', p.name);
      assert.ok(d.determining.includes('grant.programs'), JSON.stringify(d));
    }
  });

  it('the CI fixer runs the test runners and build tools it names, and nothing else or unresolved', async () => {
    const decide = decider(null, grantFile('ci-fixer'));
    assert.equal((await decide(shell(program('npm', ['test']), program('pytest', ['-q']), program('make'), program('git', ['status'])))).outcome, 'allow');
    for (const p of [program('curl', ['https://x.test']), program('python3', ['-c', 'x'], { is_interpreter: true, runs_code: true }), program('ssh'), unresolved('dynamic_command_name')]) {
      const d = await decide(shell(program('npm', ['test']), p));
      assert.deepEqual([d.outcome, d.determining.includes('grant.programs')], ['deny', true], p.name || p.unresolved || '');
    }
  });
});
