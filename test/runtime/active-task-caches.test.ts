// The per-task caches keep what an active task uses while thousands of other tasks come and go
// (least recently used goes first). Before, each was a first-in-first-out map: the 10,001st new
// task pushed out the oldest entry even if that task had just called.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CedarPolicySet, PolicyEngine, type CedarRequest } from '../../src/policy/index.js';
import type { Digest, Envelope, TaskId } from '../../src/protocol/index.js';
import { Resolver } from '../../src/runtime/stages/resolve.js';
import { sqliteStore } from '../../src/store/index.js';
import { tempDirs } from '../support/fixtures.js';
import { A1, NOW, readOf, stateFile, testRegistry } from '../policy/fixtures.js';

const ACTIVE = 'task_active' as TaskId;

/** Runs `other(i)` for `others` new tasks, and `active()` after every `every` of them. */
async function churn(others: number, every: number, other: (i: number) => unknown, active: () => unknown): Promise<void> {
  await active();
  for (let i = 0; i < others; i++) {
    await other(i);
    if (i % every === every - 1) await active();
  }
}


describe('caches of recently active tasks', () => {
  it('the pin of an active task stays cached while 12,000 other tasks are pinned', async (t) => {
    const d = tempDirs('tg-lru');
    const store = await sqliteStore({ durability: 'normal' })({ stateDir: d.state });
    try {
      const registry = testRegistry();
      const pinTask = t.mock.method(store, 'pinTask');
      const pins = (): number => pinTask.mock.calls.filter((c) => c.arguments[0] === ACTIVE).length;
      const resolver = new Resolver(registry, store, { digest: 'sha256:test-runtime' as Digest, hostTools: async () => [] });
      const env = (task: TaskId): Envelope => ({ protocol_version: 'tool-call.v1', task_id: task, tool: 'fs.read', arguments: {} }) as Envelope;
      const revisions = new Set<string>();
      await churn(
        12_000,
        500,
        (i) => resolver.resolve(env(`task_other_${i}` as TaskId), NOW),
        async () => revisions.add((await resolver.resolve(env(ACTIVE), NOW)).revision),
      );
      assert.equal(revisions.size, 1);
      // read from the store once, at its first call: never pushed out while active
      assert.equal(pins(), 1);
    } finally {
      await store.close();
      d.cleanup();
    }
  });

  it('the compiled grant of an active task stays cached while 3,000 other tasks get theirs', async (t) => {
    const state = stateFile();
    try {
      const engine = new PolicyEngine({ manifest: testRegistry().manifest, stores: state.stores });
      // putGrantIfAbsent receives the bound grant: count by its subject
      const byTask = t.mock.method(state.stores.grants, 'putGrantIfAbsent');
      const activeIssues = (): number => byTask.mock.calls.filter((c) => c.arguments[0].subject.task_id === ACTIVE).length;
      await churn(
        3_000,
        100,
        (i) => engine.authorize(readOf('a.txt'), { task_id: `task_other_${i}` as TaskId, attempt_id: A1, now: NOW }),
        async () => assert.equal((await engine.authorize(readOf('a.txt'), { task_id: ACTIVE, attempt_id: A1, now: NOW })).outcome, 'allow'),
      );
      assert.equal(activeIssues(), 1);
    } finally {
      state.dispose();
    }
  });

  it('a Cedar verdict asked for on every call stays cached while more one-off requests than the cache holds pass', async () => {
    const policy = CedarPolicySet.load(testRegistry().manifest, [{ name: 's.cedar', text: '@id("r") permit (principal, action == Toolgate::Action::"fs.read", resource is Toolgate::Path) when { context.effect == "read" && resource.path != "secret" };' }], { cacheSize: 256 });
    const req = (path: string): CedarRequest => ({
      action: 'fs.read',
      principal: { id: 't', attrs: { tenant: 'a', principal: 'p', attempt: 'a' } },
      resource: { type: 'Path', id: path, attrs: { path, access: 'read', class: 'ordinary' } },
      context: { effect: 'read', args_digest: 'd', tool_version: '1.0.0', time: NOW },
    });
    let misses = 0;
    await churn(
      1_000,
      50,
      (i) => policy.evaluate(req(`other/${i}`)),
      () => {
        if (!policy.evaluate(req('hot.txt')).cached) misses++;
      },
    );
    assert.equal(misses, 1);
  });
});
