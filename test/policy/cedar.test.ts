import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import fc from 'fast-check';
import {
  bindGrant,
  CedarPolicySet,
  cedarRequestsOf,
  cedarSchemaOf,
  CompiledGrant,
  PolicyAuthorizer,
  PolicyLoadError,
  type CedarRequest,
  type TaskGrant,
} from '../../src/policy/index.js';
import { PathClassifier } from '../../src/resources/index.js';
import { A1, fetchOf, NOW, pushOf, readOf, stateFile, T1, testRegistry, writeOf, act, validatedAgainst } from './fixtures.js';

const manifest = testRegistry().manifest;
const state = stateFile();
after(() => state.dispose());
const subject = { tenant: 'acme', principal: 'agent', task_id: T1, attempt_id: null, cancellation_epoch: 0 };
const ALL: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'network', 'publish'], read: ['**'], write: ['**'], hosts: ['*'], refs: ['**'] };

function authorizerFor(text: string, grant: TaskGrant = ALL): { decide: (a: Parameters<PolicyAuthorizer['authorize']>[0], now?: number) => ReturnType<PolicyAuthorizer['authorize']>; policy: CedarPolicySet } {
  const policy = CedarPolicySet.load(manifest, [{ name: 'test.cedar', text }]);
  const authorizer = new PolicyAuthorizer({ policy, stores: state.stores, repeatedDenialLimit: 1000 });
  const compiled = new CompiledGrant(bindGrant(grant, subject));
  return { policy, decide: (a, now = NOW) => authorizer.authorize(a, compiled, { task_id: T1, attempt_id: A1, now }) };
}

function loadError(text: string): PolicyLoadError {
  try {
    CedarPolicySet.load(manifest, [{ name: 'bad.cedar', text }]);
  } catch (e) {
    if (PolicyLoadError.isInstance(e)) return e;
    throw e;
  }
  assert.fail('the policy set loaded');
}

describe('Cedar schema from the registry', () => {
  it('has one action per tool with resource types from its capabilities', async () => {
    const ns = cedarSchemaOf(manifest)['Toolgate'];
    assert.ok(ns);
    const applies = (n: string): string[] | undefined => ns.actions[n]?.appliesTo?.resourceTypes;
    const names = [...new Set(manifest.tools.map((t) => t.name))].sort();
    assert.deepEqual(Object.keys(ns.actions).sort(), names);
    assert.ok(names.includes('fs.read') && names.includes('net.fetch'));
    assert.deepEqual(applies('fs.read'), ['Path', 'Tool']);
    assert.deepEqual(applies('net.fetch'), ['Host', 'Tool']);
    assert.deepEqual(applies('git.push'), ['Ref', 'Tool']);
    assert.deepEqual(applies('task.note'), ['Tool']);
    assert.deepEqual(Object.keys(ns.entityTypes).sort(), ['Host', 'Path', 'Program', 'Ref', 'Resource', 'Task', 'Tool']);
  });
});

describe('requests built for Cedar', () => {
  it('pass Cedar request and entity validation against the generated schema for every resource kind', async () => {
    const schema = cedarSchemaOf(manifest);
    const actions = [
      ...(['read', 'write', 'create', 'delete', 'execute'] as const).map((access) => act('fs.write', 'write', [{ kind: 'path', path: `.git/x-${access}`, access }])),
      fetchOf('api.example.com', null),
      fetchOf('api.example.com', 8443),
      act('git.push', 'publish', [{ kind: 'ref', ref: 'refs/heads/main', access: 'write' }, { kind: 'ref', ref: 'refs/tags/v1', access: 'read' }]),
      act('task.note', 'read', []),
    ];
    for (const a of actions) {
      for (const r of cedarRequestsOf(a, subject, A1, NOW, new PathClassifier())) {
        const answer = validatedAgainst(schema, r);
        assert.equal(answer.type, 'success', `${a.tool} ${r.resource.type} ${r.resource.id}: ${JSON.stringify(answer)}`);
      }
    }
  });
});

describe('policies are validated strictly at load', () => {
  it('refuses an attribute the schema does not declare, naming the policy', async () => {
    const e = loadError('@id("sized") permit (principal, action, resource is Toolgate::Path) when { resource.size < 10 };');
    assert.equal(e.faults[0]?.policy_id, 'sized');
  });

  it('refuses an action that is not a registered tool', async () => {
    const e = loadError('@id("rm") permit (principal, action == Toolgate::Action::"rm.rf", resource);');
    assert.ok(e.faults.length > 0);
  });

  it('refuses a type error, a parse error and duplicate ids', async () => {
    loadError('@id("t") permit (principal, action, resource) when { context.time == "noon" };');
    loadError('permit (principal, action, resource) when { ');
    loadError('@id("x") permit (principal, action, resource);\n@id("x") forbid (principal, action, resource);');
  });
});

describe('decision = grant AND policy', () => {
  it('an erroring forbid denies (Cedar alone would skip it and allow)', async () => {
    const text = `
      @id("allow-all") permit (principal, action, resource);
      @id("overflow-forbid") forbid (principal, action, resource) when { context.time + 9223372036854775807 > 0 };`;
    const { decide, policy } = authorizerFor(text);
    const d = await decide(readOf('src/a.ts'));
    assert.equal(d.outcome, 'deny');
    assert.equal(d.code, 'policy_denied');
    assert.deepEqual(d.determining, ['overflow-forbid']);
    assert.match(d.reasons[0] ?? '', /overflow-forbid failed to evaluate/);
    assert.equal(d.policy_version, policy.version);
    // the same request straight to Cedar: the erroring forbid is skipped and the answer is allow
    const raw = cedar.isAuthorized({
      principal: { type: 'Toolgate::Task', id: T1 },
      action: { type: 'Toolgate::Action', id: 'fs.read' },
      resource: { type: 'Toolgate::Path', id: 'src/a.ts' },
      context: { effect: 'read', args_digest: 'x', tool_version: '1.0.0', time: NOW },
      policies: { staticPolicies: text },
      entities: [],
    });
    assert.equal(raw.type === 'success' && raw.response.decision, 'allow');
  });

  it('a denial carries the determining policy ids, their reasons and the policy version', async () => {
    const text = `
      @id("allow-all") permit (principal, action, resource);
      @id("no-docs") @reason("docs are frozen") forbid (principal, action == Toolgate::Action::"fs.write", resource is Toolgate::Path) when { resource.path like "docs/*" };`;
    const { decide, policy } = authorizerFor(text);
    const d = await decide(writeOf('docs/x.md'));
    assert.equal(d.code, 'policy_denied');
    assert.deepEqual(d.determining, ['no-docs']);
    assert.deepEqual(d.reasons, ['docs are frozen']);
    assert.equal(d.policy_version, policy.version);
    assert.equal((await decide(writeOf('src/x.ts'))).outcome, 'allow');
    const changed = authorizerFor(text.replace('docs/*', 'docs/**'));
    assert.notEqual(changed.policy.version, policy.version);
  });

  it('no permitting policy is a default deny', async () => {
    const { decide } = authorizerFor('@id("reads") permit (principal, action == Toolgate::Action::"fs.read", resource);');
    const d = await decide(writeOf('a.txt'));
    assert.equal(d.code, 'policy_denied');
    assert.deepEqual(d.determining, ['policy.default_deny']);
  });

  it('a policy permit does not widen the grant, and a grant does not override a forbid', async () => {
    const { decide } = authorizerFor('@id("all") permit (principal, action, resource);', { ...ALL, write: ['out/**'] });
    assert.deepEqual((await decide(writeOf('src/a.ts'))).determining, ['grant.write']);
    const forbid = authorizerFor('@id("all") permit (principal, action, resource);\n@id("no-push") forbid (principal, action == Toolgate::Action::"git.push", resource);');
    assert.deepEqual((await forbid.decide(pushOf('refs/heads/main'))).determining, ['no-push']);
  });

  it('a permit annotated @approval("required") yields approval_required', async () => {
    const { decide } = authorizerFor(`
      @id("reads") permit (principal, action, resource is Toolgate::Path) when { context.effect == "read" };
      @id("net") @approval("required") permit (principal, action, resource is Toolgate::Host);`);
    assert.equal((await decide(readOf('a'))).outcome, 'allow');
    const d = await decide(fetchOf('api.example.com'));
    assert.equal(d.outcome, 'ask');
    assert.equal(d.code, 'approval_required');
    assert.deepEqual(d.determining, ['net']);
  });

  it('a call with no resource is decided against the tool itself', async () => {
    const { decide } = authorizerFor('@id("notes") permit (principal, action == Toolgate::Action::"task.note", resource is Toolgate::Tool);');
    assert.equal((await decide(act('task.note', 'read', []))).outcome, 'allow');
  });
});

describe('per-action preparsed sets and the decision cache', () => {
  const text = [
    '@id("p-read") permit (principal, action == Toolgate::Action::"fs.read", resource);',
    '@id("p-src") permit (principal, action in [Toolgate::Action::"fs.write", Toolgate::Action::"fs.read"], resource is Toolgate::Path) when { resource.path like "src/*" };',
    '@id("f-secret") forbid (principal, action, resource is Toolgate::Path) when { resource.class == "secret" };',
    '@id("f-git") forbid (principal, action, resource) when { resource is Toolgate::Path && resource.class == "protected" && resource.access != "read" };',
    '@id("p-host") permit (principal, action == Toolgate::Action::"net.fetch", resource == Toolgate::Host::"a.com:443");',
    '@id("f-port") forbid (principal, action, resource is Toolgate::Host) when { resource.port == 80 };',
    '@id("p-ref") permit (principal, action, resource is Toolgate::Ref) when { resource.ref like "refs/heads/*" };',
    '@id("f-tag") forbid (principal, action == Toolgate::Action::"git.push", resource is Toolgate::Ref) when { resource.ref like "refs/tags/*" };',
    '@id("p-tool") permit (principal, action, resource is Toolgate::Tool) when { context.effect == "read" };',
    '@id("f-late") forbid (principal, action == Toolgate::Action::"net.fetch", resource) when { context.time > 1796205600000 };',
    '@id("p-tenant") permit (principal, action, resource) when { principal.tenant == "root" };',
    '@id("f-write-effect") forbid (principal, action == Toolgate::Action::"fs.write", resource) when { context.effect == "publish" };',
    '@id("f-charge-overflow") forbid (principal, action, resource) when { context.effect == "charge" && context.time + 9223372036854775807 > 0 };',
    '@id("f-overflow-first") forbid (principal, action == Toolgate::Action::"fs.write", resource is Toolgate::Path) when { context.time * 9223372036854775807 > 0 && resource.access == "delete" };',
    '@id("p-unless") permit (principal, action, resource is Toolgate::Path) when { resource.access == "write" } unless { resource.class == "protected" || resource.path like "*.lock" };',
    '@id("p-or") permit (principal, action, resource) when { context.effect == "publish" || principal.tenant == "acme" };',
    '@id("f-args") forbid (principal, action == Toolgate::Action::"git.push", resource) when { context.args_digest == "d2" && principal.principal == "bot" };',
    '@id("f-one-file") forbid (principal, action, resource == Toolgate::Path::"docs/b") when { principal.tenant == "acme" };',
  ].join('\n');
  const policy = CedarPolicySet.load(manifest, [{ name: 'mixed.cedar', text }]);

  const requestArb: fc.Arbitrary<CedarRequest> = fc
    .record({
      action: fc.constantFrom('fs.read', 'fs.write', 'net.fetch', 'git.push', 'task.note'),
      kind: fc.constantFrom('Path', 'Host', 'Ref', 'Tool'),
      path: fc.constantFrom('src/a', 'docs/b', '.env', '.git/HEAD', 'yarn.lock'),
      cls: fc.constantFrom('ordinary', 'secret', 'protected'),
      access: fc.constantFrom('read', 'write', 'delete'),
      host: fc.constantFrom('a.com', 'b.com'),
      port: fc.constantFrom(443, 80),
      ref: fc.constantFrom('refs/heads/main', 'refs/tags/v1'),
      tenant: fc.constantFrom('root', 'acme'),
      effect: fc.constantFrom('read', 'write', 'publish', 'charge'),
      time: fc.constantFrom(NOW, NOW + 3_600_001),
      args: fc.constantFrom('d1', 'd2'),
      who: fc.constantFrom('p', 'bot'),
      attempt: fc.constantFrom('a1', 'a2'),
    })
    .filter((r) => manifest.tools.some((t) => t.name === r.action) && cedarSchemaOf(manifest)['Toolgate']?.actions[r.action]?.appliesTo?.resourceTypes.includes(r.kind) === true)
    .map((r) => {
      const resource: CedarRequest['resource'] =
        r.kind === 'Path'
          ? { type: 'Path', id: r.path, attrs: { path: r.path, access: r.access, class: r.cls } }
          : r.kind === 'Host'
            ? { type: 'Host', id: `${r.host}:${r.port}`, attrs: { host: r.host, port: r.port } }
            : r.kind === 'Ref'
              ? { type: 'Ref', id: r.ref, attrs: { ref: r.ref, access: r.access } }
              : { type: 'Tool', id: r.action, attrs: { name: r.action } };
      return {
        action: r.action,
        principal: { id: 'task_x', attrs: { tenant: r.tenant, principal: r.who, attempt: r.attempt } },
        resource,
        context: { effect: r.effect, args_digest: r.args, tool_version: '1.0.0', time: r.time },
      };
    });

  it('decides exactly as Cedar does over the whole set (same decision, same satisfied and erroring policies), cached or not', async () => {
    let hits = 0;
    fc.assert(
      fc.property(requestArb, (req) => {
        const ours = policy.evaluate(req);
        if (ours.cached) hits++;
        const full = cedar.isAuthorized({
          principal: { type: 'Toolgate::Task', id: req.principal.id },
          action: { type: 'Toolgate::Action', id: req.action },
          resource: { type: `Toolgate::${req.resource.type}`, id: req.resource.id },
          context: req.context,
          schema: policy.schema,
          validateRequest: true,
          policies: { staticPolicies: Object.fromEntries([...policy.policies.values()].map((p) => [p.id, p.text])) },
          entities: [
            { uid: { type: 'Toolgate::Task', id: req.principal.id }, attrs: req.principal.attrs, parents: [] },
            { uid: { type: `Toolgate::${req.resource.type}`, id: req.resource.id }, attrs: req.resource.attrs, parents: [] },
          ],
        });
        assert.equal(full.type, 'success');
        if (full.type !== 'success') return;
        assert.equal(ours.decision, full.response.decision);
        assert.deepEqual([...ours.satisfied], [...full.response.diagnostics.reason].sort());
        assert.deepEqual(ours.errored.map((e) => e.id).sort(), full.response.diagnostics.errors.map((e) => e.policyId).sort());
        // the subset really is smaller than the set
        assert.ok(policy.policiesFor(req).length < policy.policies.size);
      }),
      { numRuns: 1000 },
    );
    assert.ok(hits > 100, `only ${hits} cache hits: the cache was not exercised`);
  });

  it('caches time-independent decisions and never caches ones that read context.time', async () => {
    const stable = CedarPolicySet.load(manifest, [{ name: 's.cedar', text: '@id("r") permit (principal, action == Toolgate::Action::"fs.read", resource) when { context.effect == "read" };' }]);
    const req: CedarRequest = {
      action: 'fs.read',
      principal: { id: 't', attrs: { tenant: 'a', principal: 'p', attempt: 'a' } },
      resource: { type: 'Path', id: 'a', attrs: { path: 'a', access: 'read', class: 'ordinary' } },
      context: { effect: 'read', args_digest: 'd', tool_version: '1.0.0', time: NOW },
    };
    assert.equal(stable.evaluate(req).cached, false);
    const again = stable.evaluate({ ...req, context: { ...req.context, time: NOW + 5 } });
    assert.equal(again.cached, true);
    assert.equal(again.decision, 'allow');

    const timed = CedarPolicySet.load(manifest, [{ name: 't.cedar', text: `@id("r") permit (principal, action, resource) when { context.time < ${NOW + 1000} };` }]);
    assert.equal(timed.evaluate(req).decision, 'allow');
    const later = timed.evaluate({ ...req, context: { ...req.context, time: NOW + 2000 } });
    assert.equal(later.cached, false);
    assert.equal(later.decision, 'deny');
  });
});
