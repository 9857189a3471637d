// The tree's bounds (depth, fan-out, descendants), ownership at spawn, and budgets: a child's
// budget must fit in the parent's remainder and what it used is charged to the parent. Real
// runtimes on one SQLite state dir: the parent on the repository, each child on its worktree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type Receipt, type TaskId } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { gitTree, spawnArgs, type Tree } from './fixtures.js';

const GRANT = { tools: ['*'], effects: ['read' as const, 'write' as const, 'execute' as const], read: ['**'], write: ['**'], budget: { calls: 20 } };

function call(rt: Runtime, task: string, tool: string, args: Record<string, unknown>): Promise<Receipt> {
  return rt.call({ protocol_version: PROTOCOL_VERSION, task_id: task, tool, arguments: args });
}

async function open(t: Tree, workspace = t.workspace, calls = 20): Promise<Runtime> {
  return createRuntime({ workspace, stateDir: t.state, grant: { ...GRANT, budget: { calls } }, tasks: { max_depth: 2, max_fanout: 2, max_descendants: 3 } });
}

async function childRuntime(t: Tree, parent: Runtime, child: string): Promise<Runtime> {
  const sub = await parent.tasks?.get(child as TaskId);
  assert.ok(sub);
  return open(t, sub.record.worktree);
}

function taskIdOf(r: Receipt): string {
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  return (r.result as { task_id: string }).task_id;
}

test('depth, fan-out and descendants are bounded; owned paths overlap or leave the owner: refused', async () => {
  const t = gitTree('tg-sub-bounds', { 'src/a/x.txt': 'x\n', 'src/b/y.txt': 'y\n', 'docs/d.txt': 'd\n' });
  // Budget enough for every spawn: the refusals below are the tree's, not the budget's.
  const rt = await open(t, t.workspace, 1000);
  const opened: Runtime[] = [];
  try {
    const a = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src/a'])));
    const overlap = await call(rt, 'root', 'task.spawn', spawnArgs(['src']));
    assert.equal(overlap.error?.code, 'ownership_conflict');
    assert.deepEqual(overlap.error?.data, { reason: 'held_by', paths: ['src'], task_id: a });
    const b = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src/b'])));
    const third = await call(rt, 'root', 'task.spawn', spawnArgs(['docs']));
    assert.equal(third.error?.code, 'task_bound_exceeded');
    assert.deepEqual(third.error?.data, { bound: 'fanout', limit: 2, current: 2 });
    assert.ok(b);

    const ca = await childRuntime(t, rt, a);
    opened.push(ca);
    const outside = await call(ca, a, 'task.spawn', spawnArgs(['docs'], { budget: { calls: 2 } }));
    // The child's grant writes only what it owns: owning more is refused before the tree is asked.
    assert.equal(outside.error?.code, 'policy_denied');
    const a1 = taskIdOf(await call(ca, a, 'task.spawn', spawnArgs(['src/a/x.txt'], { budget: { calls: 3 } })));
    const ca1 = await childRuntime(t, rt, a1);
    opened.push(ca1);
    const deeper = await call(ca1, a1, 'task.spawn', spawnArgs(['src/a/x.txt'], { budget: { calls: 1 } }));
    assert.equal(deeper.error?.code, 'task_bound_exceeded');
    assert.deepEqual(deeper.error?.data, { bound: 'depth', limit: 2, current: 2 });
    const more = await call(ca, a, 'task.spawn', spawnArgs(['src/a'], { budget: { calls: 1 } }));
    assert.equal(more.error?.code, 'task_bound_exceeded');
    assert.deepEqual(more.error?.data, { bound: 'descendants', limit: 3, current: 3 });
    // Refusals create nothing: three subtasks, three worktrees.
    assert.equal((await rt.tasks?.list({ root: 'root' as TaskId }))?.length, 3);
  } finally {
    for (const o of opened) await o.close();
    await rt.close();
    t.cleanup();
  }
});

test("a child's budget must fit the parent's remainder, and what the child used is charged to the parent", async () => {
  const t = gitTree('tg-sub-budget', { 'src/a.txt': 'a\n' });
  const rt = await open(t);
  let child: Runtime | null = null;
  try {
    const tooBig = await call(rt, 'root', 'task.spawn', spawnArgs(['src'], { budget: { calls: 25 } }));
    assert.equal(tooBig.error?.code, 'budget_exhausted');
    assert.equal(tooBig.error?.data['dimension'], 'calls');
    const unlimited = await call(rt, 'root', 'task.spawn', spawnArgs(['src'], { budget: {} }));
    assert.equal(unlimited.error?.code, 'invalid_arguments');
    const before = (await rt.policy.budgets.usage('root' as TaskId)).calls;
    assert.deepEqual(before, { used: 2, reserved: 0 });

    const id = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src'], { budget: { calls: 4 } })));
    assert.deepEqual((await rt.policy.budgets.usage('root' as TaskId)).calls, { used: 3, reserved: 4 }, "the child's budget is held in the parent's");
    child = await childRuntime(t, rt, id);
    for (let i = 0; i < 3; i++) assert.equal((await call(child, id, 'fs.read', { path: 'src/a.txt' })).status, 'succeeded');
    assert.equal((await call(child, id, 'task.complete', { conclusion: { summary: 'read it thrice' } })).status, 'succeeded');
    const over = await call(child, id, 'fs.read', { path: 'src/a.txt' });
    assert.equal(over.error?.code, 'budget_exhausted');
    const result = await call(rt, 'root', 'task.result', { task_id: id });
    assert.deepEqual((result.result as { charged: unknown }).charged, { calls: 4 });
    // 2 refused spawns + 1 spawn + 4 calls of the child + 1 result: the parent's usage adds up.
    assert.deepEqual((await rt.policy.budgets.usage('root' as TaskId)).calls, { used: 2 + 1 + 4 + 1, reserved: 0 });
  } finally {
    await child?.close();
    await rt.close();
    t.cleanup();
  }
});

test('changes outside the owned paths are refused at task.complete; reverted, the child may complete', async () => {
  const t = gitTree('tg-sub-outside', { 'src/a.txt': 'a\n', 'docs/d.txt': 'd\n' });
  const rt = await open(t);
  let child: Runtime | null = null;
  try {
    const id = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src'])));
    const sub = await rt.tasks?.get(id as TaskId);
    assert.ok(sub);
    // Whatever wrote it (a command the sandbox let write the tree), docs/ is not the child's.
    writeFileSync(join(sub.record.worktree, 'docs/d.txt'), 'planted\n');
    writeFileSync(join(sub.record.worktree, 'docs/new.txt'), 'planted\n');
    child = await childRuntime(t, rt, id);
    const refused = await call(child, id, 'task.complete', { conclusion: { summary: 's' } });
    assert.equal(refused.error?.code, 'ownership_conflict');
    assert.deepEqual(refused.error?.data, { reason: 'changed_outside', paths: ['docs/d.txt', 'docs/new.txt'], task_id: id });
    assert.equal((await rt.tasks?.get(id as TaskId))?.state, 'running', 'the child may fix it and retry');
    writeFileSync(join(sub.record.worktree, 'docs/d.txt'), 'd\n');
    unlinkSync(join(sub.record.worktree, 'docs/new.txt'));
    assert.equal((await call(child, id, 'task.complete', { conclusion: { summary: 's' } })).status, 'succeeded');
    const r = await call(rt, 'root', 'task.result', { task_id: id });
    assert.deepEqual((r.result as { changes: unknown }).changes, []);
    assert.equal(readFileSync(join(t.workspace, 'docs/d.txt'), 'utf8'), 'd\n');
    assert.equal(existsSync(join(t.workspace, 'docs/new.txt')), false);
    assert.equal(existsSync(sub.record.token_file), false, 'the token file goes when the child ends');
  } finally {
    await child?.close();
    await rt.close();
    t.cleanup();
  }
});

test("a child past its deadline is expired: waits end, its calls are refused, what it used is charged", async () => {
  const t = gitTree('tg-sub-expire', { 'src/a.txt': 'a\n' });
  const rt = await open(t);
  let child: Runtime | null = null;
  try {
    const id = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src'], { deadline_ms: 1000 })));
    child = await childRuntime(t, rt, id);
    // One call may still fit before the deadline (or not, on a slow machine): charged only if it ran.
    const early = await call(child, id, 'fs.read', { path: 'src/a.txt' });
    const waited = await call(rt, 'root', 'task.wait', { task_ids: [id], timeout_ms: 30_000 });
    assert.deepEqual((waited.result as { tasks: unknown }).tasks, [{ task_id: id, state: 'expired' }]);
    // The child's grant carries the deadline: every later call, task.complete too, is refused before it runs.
    assert.equal((await call(child, id, 'fs.read', { path: 'src/a.txt' })).error?.code, 'policy_denied');
    assert.equal((await call(child, id, 'task.complete', { conclusion: { summary: 'late' } })).error?.code, 'policy_denied');
    const r = await call(rt, 'root', 'task.result', { task_id: id });
    assert.equal((r.result as { state: string }).state, 'expired');
    assert.deepEqual((r.result as { charged: unknown }).charged, { calls: early.status === 'succeeded' ? 1 : 0 });
  } finally {
    await child?.close();
    await rt.close();
    t.cleanup();
  }
});

test("a grandchild cannot widen what its parent was given: restrictions only add up", async () => {
  const t = gitTree('tg-sub-widen', { 'src/a.txt': 'a\n' });
  const rt = await open(t, t.workspace, 1000);
  const opened: Runtime[] = [];
  try {
    const a = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src'], { restrictions: { tools: ['fs.*', 'task.*'] }, budget: { calls: 50 } })));
    const ca = await childRuntime(t, rt, a);
    opened.push(ca);
    assert.equal((await call(ca, a, 'shell.exec', { argv: ['true'] })).error?.code, 'policy_denied');
    // The grandchild asks for shell tools only: it gets what both lists allow, which is none of them.
    const g = taskIdOf(await call(ca, a, 'task.spawn', spawnArgs(['src/a.txt'], { restrictions: { tools: ['shell.*'] }, budget: { calls: 5 } })));
    const cg = await childRuntime(t, rt, g);
    opened.push(cg);
    for (const [tool, args] of [
      ['shell.exec', { argv: ['sh', '-c', 'echo x > src/a.txt'] }],
      ['fs.write', { path: 'src/a.txt', content: 'x\n', mode: 'create_or_replace' }],
      ['fs.read', { path: 'src/a.txt' }],
    ] as const) {
      assert.equal((await call(cg, g, tool, args)).error?.code, 'policy_denied', tool);
    }
    // task.complete stays open to it: the one way it hands back.
    assert.equal((await call(cg, g, 'task.complete', { conclusion: { summary: 'nothing allowed' } })).status, 'succeeded');
    assert.equal(readFileSync(join(t.workspace, 'src/a.txt'), 'utf8'), 'a\n');
  } finally {
    for (const o of opened) await o.close();
    await rt.close();
    t.cleanup();
  }
});

test('a child owning "." owns the whole workspace: it writes anywhere, and no sibling may own anything', async () => {
  const t = gitTree('tg-sub-dot', { 'src/a.txt': 'a\n', 'b.txt': 'b\n' });
  const rt = await open(t, t.workspace, 100);
  let child: Runtime | null = null;
  try {
    const id = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['.'])));
    assert.equal((await call(rt, 'root', 'task.spawn', spawnArgs(['src']))).error?.code, 'ownership_conflict');
    child = await childRuntime(t, rt, id);
    assert.equal((await call(child, id, 'fs.write', { path: 'b.txt', content: 'B\n', mode: 'create_or_replace' })).status, 'succeeded');
    assert.equal((await call(child, id, 'fs.write', { path: 'src/new.txt', content: 'n\n' })).status, 'succeeded');
    assert.equal((await call(child, id, 'task.complete', { conclusion: { summary: 's' } })).status, 'succeeded');
    const r = await call(rt, 'root', 'task.result', { task_id: id });
    assert.deepEqual((r.result as { merge: unknown }).merge, { status: 'merged', written: ['b.txt', 'src/new.txt'], deleted: [], revision: (r.result as { merge: { revision: string } }).merge.revision });
    assert.equal(readFileSync(join(t.workspace, 'src/new.txt'), 'utf8'), 'n\n');
  } finally {
    await child?.close();
    await rt.close();
    t.cleanup();
  }
});

test("cancelling a task through the runtime (runtime.cancelTask) ends its subtasks' whole tree", async () => {
  const t = gitTree('tg-sub-rtcancel', { 'src/a/x.txt': 'x\n', 'src/b.txt': 'b\n' });
  const rt = await open(t, t.workspace, 100);
  let child: Runtime | null = null;
  try {
    const a = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src/a'], { budget: { calls: 20 } })));
    const b = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['src/b.txt'])));
    child = await childRuntime(t, rt, a);
    const a1 = taskIdOf(await call(child, a, 'task.spawn', spawnArgs(['src/a/x.txt'], { budget: { calls: 2 } })));
    rt.cancelTask('root');
    const states = async (): Promise<string[]> => Promise.all([a, b, a1].map(async (id) => (await rt.tasks?.get(id as TaskId))?.state ?? 'none'));
    for (let i = 0; i < 200 && (await states()).some((s) => s !== 'cancelled'); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await states(), ['cancelled', 'cancelled', 'cancelled']);
    rt.resumeTask('root');
  } finally {
    await child?.close();
    await rt.close();
    t.cleanup();
  }
});

test('secret files never enter a snapshot: not the input revision, not the worktree, not the result, not the object store', async () => {
  const t = gitTree('tg-sub-secret', { 'src/a.txt': 'a\n' });
  const canary = `tg-canary-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(join(t.workspace, '.env'), `TOKEN=${canary}\n`);
  const rt = await open(t, t.workspace, 100);
  let child: Runtime | null = null;
  try {
    const id = taskIdOf(await call(rt, 'root', 'task.spawn', spawnArgs(['.'])));
    const sub = await rt.tasks?.get(id as TaskId);
    assert.ok(sub);
    assert.equal(existsSync(join(sub.record.worktree, '.env')), false);
    // A secret the child's tree grew (whatever wrote it) is left out of its result too.
    writeFileSync(join(sub.record.worktree, '.env'), `TOKEN=${canary}-child\n`);
    writeFileSync(join(sub.record.worktree, 'src/a.txt'), 'b\n');
    child = await childRuntime(t, rt, id);
    const done = await call(child, id, 'task.complete', { conclusion: { summary: 's' } });
    assert.deepEqual((done.result as { changes: unknown }).changes, [{ status: 'M', path: 'src/a.txt' }]);
    const objects = execFileSync('git', ['-C', t.workspace, 'cat-file', '--batch-all-objects', '--batch'], { maxBuffer: 64 * 1024 * 1024 });
    assert.equal(objects.includes(Buffer.from(canary)), false, 'no git object holds the secret');
  } finally {
    await child?.close();
    await rt.close();
    t.cleanup();
  }
});
