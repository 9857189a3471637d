// bench/policy: authorization decisions per second with a 50-policy Cedar set, against the
// references measured in the same run, and their share of a whole fs.read call.
//   npx tsx bench/policy/main.ts
import * as cedar from '@cedar-policy/cedar-wasm/nodejs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { bindGrant, CedarPolicySet, cedarRequestsOf, CompiledGrant, DEFAULT_GRANT, PolicyAuthorizer } from '../../src/policy/index.js';
import { digestOf, PROTOCOL_VERSION, type AttemptId, type NormalizedAction, type TaskId } from '../../src/protocol/index.js';
import { Registry } from '../../src/registry/index.js';
import { PathClassifier } from '../../src/resources/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { migratePolicyTables, sqlitePolicyStores } from '../../src/store/sqlite/policy-tables.js';
import { builtinTools } from '../../src/tools/index.js';
import { benchTools, fiftyPolicies } from './policy-set.js';

function measure(label: string, iterations: number, fn: (i: number) => void): { label: string; us: number } {
  for (let i = 0; i < Math.min(200, iterations); i++) fn(i); // warm up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn(i);
  const us = Number(process.hrtime.bigint() - t0) / 1000 / iterations;
  return { label, us };
}

async function measureAsync(label: string, iterations: number, fn: (i: number) => Promise<unknown>): Promise<{ label: string; us: number }> {
  for (let i = 0; i < 50; i++) await fn(i);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await fn(i);
  return { label, us: Number(process.hrtime.bigint() - t0) / 1000 / iterations };
}

const base = mkdtempSync(join(tmpdir(), 'tg-bench-policy-'));
try {
  const tools = [...builtinTools(), ...benchTools()];
  const registry = new Registry(tools);
  const text = fiftyPolicies();
  const policy = CedarPolicySet.load(registry.manifest, [{ name: 'bench.cedar', text }]);
  const db = new Database(join(base, 'toolgate.db'));
  db.pragma('journal_mode = WAL');
  migratePolicyTables(db);
  const authorizer = new PolicyAuthorizer({ policy, stores: sqlitePolicyStores(db) });
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
  const entitiesOf = (r: ReturnType<typeof requestOf>) => [
    { uid: { type: 'Toolgate::Task', id: r.principal.id }, attrs: r.principal.attrs, parents: [] },
    { uid: { type: `Toolgate::${r.resource.type}`, id: r.resource.id }, attrs: r.resource.attrs, parents: [] },
  ];
  const callOf = (r: ReturnType<typeof requestOf>) => ({
    principal: { type: 'Toolgate::Task', id: r.principal.id },
    action: { type: 'Toolgate::Action', id: r.action },
    resource: { type: `Toolgate::${r.resource.type}`, id: r.resource.id },
    context: r.context,
    entities: entitiesOf(r),
  });
  const staticPolicies = Object.fromEntries([...policy.policies.values()].map((p) => [p.id, p.text]));
  if (cedar.preparsePolicySet('bench:whole', { staticPolicies }).type !== 'success') throw new Error('preparse failed');
  if (cedar.preparseSchema('bench:schema', policy.schema).type !== 'success') throw new Error('schema preparse failed');

  const check = (a: cedar.AuthorizationAnswer): void => {
    if (a.type !== 'success' || a.response.decision !== 'allow') throw new Error(`unexpected answer ${JSON.stringify(a)}`);
  };
  const rows = [
    measure('cedar isAuthorized, whole set re-parsed (reference)', 300, (i) =>
      check(cedar.isAuthorized({ ...callOf(requestOf(i)), schema: policy.schema, validateRequest: true, policies: { staticPolicies } })),
    ),
    measure('cedar statefulIsAuthorized, whole set preparsed', 3000, (i) =>
      check(cedar.statefulIsAuthorized({ ...callOf(requestOf(i)), preparsedSchemaName: 'bench:schema', validateRequest: true, preparsedPolicySetId: 'bench:whole' })),
    ),
    measure('Toolgate per-action set, cache miss', 5000, (i) => {
      if (policy.evaluate(requestOf(i)).decision !== 'allow') throw new Error('deny');
    }),
    measure('Toolgate per-action set, cache hit', 20000, () => {
      if (policy.evaluate(requestOf(0)).decision !== 'allow') throw new Error('deny');
    }),
    measure('authorize (grant ∧ policy), distinct actions', 5000, (i) => {
      if (authorizer.authorize(readAction(100_000 + i), grant, { task_id: task, attempt_id: attempt, now }).outcome !== 'allow') throw new Error('deny');
    }),
    measure('authorize (grant ∧ policy), repeated action', 20000, () => {
      if (authorizer.authorize(readAction(0), grant, { task_id: task, attempt_id: attempt, now }).outcome !== 'allow') throw new Error('deny');
    }),
  ];

  // a whole fs.read call through the runtime: parse … commit, receipt durable in SQLite
  const ws = join(base, 'ws');
  mkdirSync(join(ws, 'src'), { recursive: true });
  for (let i = 0; i < 20; i++) writeFileSync(join(ws, 'src', `file${i}.ts`), `export const x${i} = ${i};\n`.repeat(20));
  const rt = createRuntime({ workspace: ws, stateDir: join(base, 'state'), tools: builtinTools() });
  const call = await measureAsync('fs.read call through the runtime', 1500, async (i) => {
    const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'bench-task', tool: 'fs.read', arguments: { path: `src/file${i % 20}.ts` } });
    if (r.status !== 'succeeded') throw new Error(`fs.read ${r.status}: ${JSON.stringify(r.error)}`);
  });
  await rt.close();
  db.close();

  const ref = rows[0]!.us;
  const subset = [...policy.policies.values()].length;
  console.log(`policies: ${subset}, of which ${policy.policiesInScope('fs.read', 'Path').length} in the fs.read/Path subset (Cedar ${cedar.getCedarVersion()}, Node ${process.version})`);
  console.log('| measurement | µs / decision | decisions / s | × reference |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.label} | ${r.us.toFixed(1)} | ${Math.round(1e6 / r.us).toLocaleString('en-US')} | ${(ref / r.us).toFixed(1)} |`);
  console.log(`| ${call.label} | ${call.us.toFixed(1)} | ${Math.round(1e6 / call.us).toLocaleString('en-US')} calls/s | |`);
  const miss = rows[4]!.us;
  const hit = rows[5]!.us;
  console.log(`share of an fs.read call: ${((100 * miss) / call.us).toFixed(1)}% (distinct actions), ${((100 * hit) / call.us).toFixed(1)}% (repeated action); goal < 10%`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
