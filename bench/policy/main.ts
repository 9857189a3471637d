// bench/policy: authorization decisions per second with a 50-policy Cedar set, against the
// references measured in the same run, and their share of a whole fs.read call. The box is
// shared, so every measurement runs in several interleaved rounds and the median is printed.
//   npx tsx bench/policy/main.ts [rounds]
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { bindGrant, CedarPolicySet, cedarRequestsOf, CompiledGrant, DEFAULT_GRANT, PolicyAuthorizer, PolicyEngine } from '../../src/policy/index.js';
import { digestOf, PROTOCOL_VERSION, type AttemptId, type NormalizedAction, type TaskId } from '../../src/protocol/index.js';
import { Registry } from '../../src/registry/index.js';
import { PathClassifier } from '../../src/resources/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { migratePolicyTables, sqlitePolicyStores } from '../../src/store/sqlite/policy-tables.js';
import { builtinTools } from '../../src/tools/index.js';
import { benchTools, fiftyPolicies } from './policy-set.js';

interface Case {
  readonly label: string;
  readonly iterations: number;
  run(i: number): void | Promise<void>;
}

async function timeOnce(c: Case, offset: number): Promise<number> {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < c.iterations; i++) await c.run(offset + i);
  return Number(process.hrtime.bigint() - t0) / 1000 / c.iterations;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const rounds = Number(process.argv[2] ?? 5);
const base = mkdtempSync(join(tmpdir(), 'tg-bench-policy-'));
try {
  // Stand-ins only for the tools that are not built in (fs.search and shell.exec now are).
  const builtins = builtinTools();
  const toolset = [...builtins, ...benchTools().filter((t) => !builtins.some((b) => b.name === t.name))];
  const registry = new Registry(toolset);
  const policy = CedarPolicySet.load(registry.manifest, [{ name: 'bench.cedar', text: fiftyPolicies() }]);
  const db = new Database(join(base, 'toolgate.db'));
  db.pragma('journal_mode = WAL');
  migratePolicyTables(db);
  const authorizer = new PolicyAuthorizer({ policy, stores: sqlitePolicyStores(db) });
  // the same set without the decision cache: every decision is evaluated by Cedar
  const uncached = CedarPolicySet.load(registry.manifest, [{ name: 'bench.cedar', text: fiftyPolicies() }], { cacheSize: 0 });
  const uncachedAuthorizer = new PolicyAuthorizer({ policy: uncached, stores: sqlitePolicyStores(db) });
  // everything the runtime does for policy per call: authorize, reserve at admission, settle at commit
  const engine = new PolicyEngine({ manifest: registry.manifest, policies: [{ name: 'bench.cedar', text: fiftyPolicies() }], stores: sqlitePolicyStores(db), grant: { ...DEFAULT_GRANT, budget: { calls: 1e12 } } });
  const engineCall = async (i: number): Promise<void> => {
    must((await engine.authorize(readAction(i), { task_id: task, attempt_id: attempt, now })).outcome === 'allow');
    const r = await engine.admit(task, now);
    await engine.settle(r, { calls: 1, wall_ms: 1 });
  };
  const task = 'task-1' as TaskId;
  const attempt = 'att-1' as AttemptId;
  const grant = new CompiledGrant(bindGrant(DEFAULT_GRANT, { tenant: 'local', principal: 'local', task_id: task, attempt_id: null, cancellation_epoch: 0 }));
  const now = Date.now();
  const readAction = (i: number): NormalizedAction => ({
    tool: 'fs.read',
    tool_version: '1.0.0',
    effect_class: 'read',
    resources: [{ kind: 'path', path: `src/file${i}.ts`, access: 'read' }],
    args_digest: digestOf({ path: `src/file${i}.ts` }),
  });
  const classifier = new PathClassifier();
  const requestOf = (i: number) => cedarRequestsOf(readAction(i), grant.grant.subject, attempt, now, classifier)[0]!;
  const callOf = (r: ReturnType<typeof requestOf>) => ({
    principal: { type: 'Toolgate::Task', id: r.principal.id },
    action: { type: 'Toolgate::Action', id: r.action },
    resource: { type: `Toolgate::${r.resource.type}`, id: r.resource.id },
    context: r.context,
    entities: [
      { uid: { type: 'Toolgate::Task', id: r.principal.id }, attrs: r.principal.attrs, parents: [] },
      { uid: { type: `Toolgate::${r.resource.type}`, id: r.resource.id }, attrs: r.resource.attrs, parents: [] },
    ],
  });
  const staticPolicies = Object.fromEntries([...policy.policies.values()].map((p) => [p.id, p.text]));
  if (cedar.preparsePolicySet('bench:whole', { staticPolicies }).type !== 'success') throw new Error('preparse failed');
  const allow = (a: cedar.AuthorizationAnswer): void => {
    if (a.type !== 'success' || a.response.decision !== 'allow') throw new Error(`unexpected answer ${JSON.stringify(a)}`);
  };
  const must = (ok: boolean): void => {
    if (!ok) throw new Error('unexpected deny');
  };

  // a whole fs.read call through the runtime: parse … commit, the receipt durable in SQLite
  const ws = join(base, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(ws, 'src', `file${i}.ts`), `export const x${i} = ${i};\n`.repeat(20));
  // the runtime authorizes every call with the same 50-policy set
  const rt = await createRuntime({ workspace: ws, stateDir: join(base, 'state'), tools: toolset, policies: [{ name: 'bench.cedar', text: fiftyPolicies() }] });

  let fresh = 1_000_000; // distinct actions never seen before: every one is a cache miss
  const cases: Case[] = [
    { label: 'cedar isAuthorized, whole set re-parsed (reference)', iterations: 40, run: (i) => allow(cedar.isAuthorized({ ...callOf(requestOf(i)), policies: { staticPolicies } })) },
    { label: 'cedar statefulIsAuthorized, whole set preparsed', iterations: 400, run: (i) => allow(cedar.statefulIsAuthorized({ ...callOf(requestOf(i)), preparsedPolicySetId: 'bench:whole' })) },
    { label: 'Toolgate policy subset, cache off (Cedar evaluates)', iterations: 1000, run: () => must(uncached.evaluate(requestOf(fresh++)).decision === 'allow') },
    { label: 'Toolgate policy subset, cache on, distinct reads', iterations: 4000, run: () => must(policy.evaluate(requestOf(fresh++)).decision === 'allow') },
    { label: 'authorize (grant ∧ policy), cache off', iterations: 1000, run: async () => must((await uncachedAuthorizer.authorize(readAction(fresh++), grant, { task_id: task, attempt_id: attempt, now })).outcome === 'allow') },
    { label: 'authorize (grant ∧ policy), cache on, distinct reads', iterations: 4000, run: async () => must((await authorizer.authorize(readAction(fresh++), grant, { task_id: task, attempt_id: attempt, now })).outcome === 'allow') },
    { label: 'authorize + budget reserve + settle (a budgeted call), cache on', iterations: 1000, run: () => engineCall(fresh++) },
    {
      label: 'fs.read call through the runtime (50-policy set, distinct reads)',
      iterations: 300,
      run: async (i) => {
        // a fresh start_line makes each call a distinct normalized action (a policy cache miss)
        const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'bench-task', tool: 'fs.read', arguments: { path: `src/file${i % 20}.ts`, start_line: 1 + (i % 15) } });
        if (r.status !== 'succeeded') throw new Error(`fs.read ${r.status}: ${JSON.stringify(r.error)}`);
      },
    },
  ];
  const samples = cases.map(() => [] as number[]);
  for (const c of cases) await timeOnce({ ...c, iterations: Math.min(c.iterations, 100) }, 0); // warm up
  for (let r = 0; r < rounds; r++) {
    for (const [k, c] of cases.entries()) samples[k]?.push(await timeOnce(c, r * c.iterations));
  }
  await rt.close();
  db.close();

  const us = samples.map(median);
  const ref = us[0] as number;
  const call = us[7] as number;
  console.log(
    `policies: ${policy.policies.size}; ${policy.policiesInScope('fs.read', 'Path').length} in scope of fs.read on a path; ` +
      `${policy.policiesFor(requestOf(0)).length} evaluated for a read of an ordinary file (Cedar ${cedar.getCedarVersion()}, Node ${process.version}, median of ${rounds} rounds)`,
  );
  console.log('| measurement | µs each | per second | × reference |');
  console.log('|---|---:|---:|---:|');
  cases.forEach((c, k) => {
    const u = us[k] as number;
    console.log(`| ${c.label} | ${u.toFixed(1)} | ${Math.round(1e6 / u).toLocaleString('en-US')} | ${k === 7 ? '' : (ref / u).toFixed(1)} |`);
  });
  console.log(`share of an fs.read call: ${((100 * (us[4] as number)) / call).toFixed(1)}% with the cache off (every decision by Cedar), ${((100 * (us[5] as number)) / call).toFixed(1)}% with the cache on, ${((100 * (us[6] as number)) / call).toFixed(1)}% for authorize + budget reserve and settle; goal < 10%`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
