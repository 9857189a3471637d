import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  attenuate,
  BUDGET_DIMENSIONS,
  bindGrant,
  CompiledGrant,
  type SeenCall,
  type Grant,
  type Restrictions,
  type TaskGrant,
} from '../../src/policy/index.js';
import { EFFECT_CLASSES, type NormalizedAction, type Resource } from '../../src/protocol/index.js';
import { A1, act, fetchOf, NOW, pushOf, readOf, T1, writeOf } from './fixtures.js';

const subject = { tenant: 'acme', principal: 'agent', task_id: T1, attempt_id: null, cancellation_epoch: 0 };

const PATHS = ['src/a.ts', 'src/lib/b.ts', 'docs/x.md', '.git/HEAD', 'README.md', 'test/a.test.ts', '.env'];
const PATH_GLOBS = ['**', 'src/**', 'src/*', '*.md', '**/*.ts', 'docs/**', '.git/**', 'test/**', 'README.md', '**/b.ts'];
const TOOLS = ['fs.read', 'fs.write', 'net.fetch', 'git.push', 'task.note'];
const TOOL_GLOBS = ['*', 'fs.*', 'fs.read', 'git.*', 'net.fetch', '*.note'];
const HOSTS = ['a.com', 'api.a.com', 'c.org'];
const HOST_GLOBS = ['*', 'a.com', '*.a.com', 'a.com:443', 'c.org:*', '*.org'];
const REFS = ['refs/heads/main', 'refs/heads/fix/x', 'refs/tags/v1'];
const REF_GLOBS = ['**', 'refs/heads/*', 'refs/heads/**', 'refs/tags/*', 'refs/heads/main'];
const TIMES = ['2026-12-02T09:00:00.000Z', '2026-12-02T10:00:00.000Z', '2026-12-02T11:00:00.000Z', '2026-12-02T12:00:00.000Z'];
const REVISIONS = ['r1', 'r2'];

const globs = (xs: string[]): fc.Arbitrary<string[]> => fc.subarray(xs);
const opt = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(a, { nil: undefined });
const budgetArb = fc.record(
  Object.fromEntries([...BUDGET_DIMENSIONS, 'calls_per_minute'].map((d) => [d, opt(fc.nat(50))])) as Record<string, fc.Arbitrary<number | undefined>>,
);
const conditionsArb = fc.record({ required_revision: opt(fc.constantFrom(...REVISIONS)), environment: opt(fc.constantFrom('ci', 'dev')) });

function clean<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const specArb: fc.Arbitrary<TaskGrant> = fc
  .record({
    tools: opt(globs(TOOL_GLOBS)),
    effects: opt(fc.subarray([...EFFECT_CLASSES])),
    read: opt(globs(PATH_GLOBS)),
    write: opt(globs(PATH_GLOBS)),
    hosts: opt(globs(HOST_GLOBS)),
    refs: opt(globs(REF_GLOBS)),
    not_before: opt(fc.constantFrom(...TIMES)),
    expires_at: opt(fc.constantFrom(...TIMES)),
    deadline: opt(fc.constantFrom(...TIMES)),
    budget: opt(budgetArb.map(clean)),
    approval_required: opt(fc.subarray([...EFFECT_CLASSES])),
    conditions: opt(conditionsArb.map(clean)),
  })
  .map((s) => clean(s) as TaskGrant);

const restrictionsArb: fc.Arbitrary<Restrictions> = specArb.map((s) => s as Restrictions);

const resourceArb: fc.Arbitrary<Resource> = fc.oneof(
  fc.record({ kind: fc.constant('path' as const), path: fc.constantFrom(...PATHS), access: fc.constantFrom('read' as const, 'write' as const, 'create' as const, 'delete' as const, 'execute' as const) }),
  fc.record({ kind: fc.constant('host' as const), host: fc.constantFrom(...HOSTS), port: fc.constantFrom(null, 443, 80) }),
  fc.record({ kind: fc.constant('ref' as const), ref: fc.constantFrom(...REFS), access: fc.constantFrom('read' as const, 'write' as const) }),
);

const actionArb: fc.Arbitrary<NormalizedAction> = fc
  .record({ tool: fc.constantFrom(...TOOLS), effect: fc.constantFrom(...EFFECT_CLASSES), resources: fc.array(resourceArb, { maxLength: 3 }) })
  .map((a) => act(a.tool, a.effect, a.resources));

const callArb: fc.Arbitrary<SeenCall> = fc.record({
  task_id: fc.constant(T1),
  attempt_id: fc.constant(A1),
  now: fc.constantFrom(...TIMES.map((t) => Date.parse(t)), Date.parse(TIMES[1] as string) + 1),
  revision: fc.constantFrom(...REVISIONS),
  environment: fc.constantFrom('ci', 'dev'),
});

/** Everything a grant alone decides: scope, time, conditions, and whether it asks. */
function verdict(g: Grant | CompiledGrant, action: NormalizedAction, call: SeenCall): { allows: boolean; asks: boolean } {
  const c = g instanceof CompiledGrant ? g : new CompiledGrant(g);
  const faults = [...c.checkSubject(call), ...c.checkScope(action), ...c.checkTime(call.now), ...c.checkConditions(call, 'pv')];
  return { allows: faults.length === 0, asks: c.requiresApproval(action) };
}

describe('attenuate', () => {
  it('every action a child allows, its parent allows (10,000 random grants, restriction chains and actions)', async () => {
    fc.assert(
      fc.property(specArb, fc.array(restrictionsArb, { minLength: 1, maxLength: 3 }), fc.array(actionArb, { minLength: 1, maxLength: 4 }), callArb, (spec, chain, actions, call) => {
        const root = bindGrant(spec, subject);
        let parent = root;
        for (const r of chain) {
          const child = attenuate(parent, r);
          const [cc, pc] = [new CompiledGrant(child), new CompiledGrant(parent)];
          for (const a of actions) {
            const c = verdict(cc, a, call);
            const p = verdict(pc, a, call);
            if (c.allows) assert.ok(p.allows, 'child allows what its parent does not');
            // asking is narrower than allowing: a child never drops an approval its parent requires
            if (p.asks) assert.ok(c.asks, 'child dropped an approval requirement');
          }
          for (const d of [...BUDGET_DIMENSIONS, 'calls_per_minute'] as const) {
            const pl = parent.budget[d];
            const cl = child.budget[d];
            if (pl !== null) assert.ok(cl !== null && cl <= pl, `child budget ${d} exceeds the parent's`);
          }
          assert.equal(child.parent, pc.digest);
          parent = child;
        }
      }),
      { numRuns: 10_000 },
    );
  });

  it('a review subtask gets reads and test inspection without patch, network or merge', async () => {
    const ciFixer = bindGrant(
      { tools: ['*'], effects: ['read', 'write', 'execute', 'network', 'publish'], read: ['**'], write: ['**'], hosts: ['registry.npmjs.org'], refs: ['refs/heads/**'] },
      subject,
    );
    const reviewer = attenuate(ciFixer, { tools: ['fs.read', 'fs.search', 'test.inspect'], effects: ['read'], write: [], hosts: [], refs: [] });
    const allows = (a: NormalizedAction): boolean => verdict(reviewer, a, { task_id: T1, attempt_id: A1, now: NOW }).allows;
    assert.equal(allows(readOf('src/a.ts')), true);
    assert.equal(allows(act('test.inspect', 'read', [{ kind: 'path', path: 'test/report.xml', access: 'read' }])), true);
    assert.equal(allows(writeOf('src/a.ts')), false);
    assert.equal(allows(act('fs.patch', 'write', [{ kind: 'path', path: 'src/a.ts', access: 'write' }])), false);
    assert.equal(allows(fetchOf('registry.npmjs.org')), false);
    assert.equal(allows(pushOf('refs/heads/main')), false);
    assert.notEqual(new CompiledGrant(reviewer).digest, new CompiledGrant(ciFixer).digest);
  });

  it('restrictions cannot widen: a restriction listing more than the parent still gets only the parent', async () => {
    const parent = bindGrant({ tools: ['fs.read'], effects: ['read'], read: ['src/**'] }, subject);
    const child = attenuate(parent, { tools: ['*'], effects: ['read', 'write'], read: ['**'], budget: { calls: 5 } });
    assert.deepEqual(child.effects, ['read']);
    const call = { task_id: T1, attempt_id: A1, now: NOW };
    assert.equal(verdict(child, readOf('docs/x.md'), call).allows, false);
    assert.equal(verdict(child, writeOf('src/a.ts'), call).allows, false);
    assert.equal(verdict(child, readOf('src/a.ts'), call).allows, true);
    assert.equal(child.budget.calls, 5);
  });
});
