// Registry rollout (docs/registry.md#rollout): canary shares of new tasks, pinned tasks resumed on
// their revision by a restarted runtime (same state dir), retirement with a deprecation window.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/cli/config.js';
import { runtimeOptions } from '../../src/cli/open-runtime.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { ledgerLines, probeTool } from '../support/probe-tools.js';
import { createRuntime } from '../../src/runtime/index.js';
import { Registry, Rollout, inCanary, type RolloutConfig } from '../../src/registry/index.js';
import { StartupError } from '../../src/protocol/index.js';

const DAY = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString();

/** test.effect 1.0.0 and 2.0.0, each appending to its own ledger (which version ran is visible). */
function versions(base: string): { tools: ReturnType<typeof probeTool>[]; v1: string; v2: string } {
  const v1 = join(base, 'ledger-1');
  const v2 = join(base, 'ledger-2');
  return { tools: [probeTool({ ledger: v1 }), probeTool({ ledger: v2, version: '2.0.0' })], v1, v2 };
}

describe('canary: a share of new tasks pins the new version', () => {
  it('across 200 task ids the share is within 4 standard deviations of the configured 25%, and each id decides alone', () => {
    const rollout: RolloutConfig = { 'test.effect': { canary: { version: '2.0.0', share: 0.25 } } };
    const registry = new Registry(versions('/nonexistent').tools, new Rollout(rollout));
    let canary = 0;
    for (let i = 0; i < 200; i++) {
      const task = `task-${i}`;
      const pinned = registry.manifestFor(task, Date.now());
      const has = pinned.tools.some((e) => e.version === '2.0.0');
      assert.equal(has, inCanary(task, 'test.effect', '2.0.0', 0.25));
      if (has) canary++;
      // The control cohort's manifest lacks 2.0.0 entirely, so a name-only call resolves 1.0.0.
      assert.equal(registry.resolve('test.effect', undefined, pinned, Date.now()).entry.version, has ? '2.0.0' : '1.0.0');
    }
    // Binomial(200, 0.25): mean 50, standard deviation 6.1.
    assert.ok(canary >= 26 && canary <= 74, `${canary} of 200 in the canary`);
    // Two cohorts, two revisions, neither the registry's own (which has both versions unchanged).
    const revisions = new Set(Array.from({ length: 200 }, (_, i) => registry.manifestFor(`task-${i}`, Date.now()).revision));
    assert.equal(revisions.size, 2);
    // Share 0 and 1 are exact.
    const none = new Registry(versions('/nonexistent').tools, new Rollout({ 'test.effect': { canary: { version: '2.0.0', share: 0 } } }));
    const all = new Registry(versions('/nonexistent').tools, new Rollout({ 'test.effect': { canary: { version: '2.0.0', share: 1 } } }));
    for (let i = 0; i < 50; i++) {
      assert.ok(!none.manifestFor(`t${i}`, Date.now()).tools.some((e) => e.version === '2.0.0'));
      assert.ok(all.manifestFor(`t${i}`, Date.now()).tools.some((e) => e.version === '2.0.0'));
    }
  });

  it('the cohorts are stable across a restart: pinned tasks keep their version, new tasks fall where the hash says', async () => {
    const d = tempDirs('tg-rollout');
    const rollout: RolloutConfig = { 'test.effect': { canary: { version: '2.0.0', share: 0.3 } } };
    try {
      const seen = new Map<string, string>();
      const first = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools: versions(d.base).tools, rollout });
      try {
        for (let i = 0; i < 40; i++) {
          const r = await first.call(envelope('test.effect', { label: `a${i}` }, { task_id: `task-${i}` }));
          assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
          seen.set(`task-${i}`, String(r.tool_version));
          // A task out of the canary that names the canary version is told why it cannot have it.
          if (r.tool_version === '1.0.0') {
            const asked = await first.call(envelope('test.effect', { label: `x${i}` }, { task_id: `task-${i}`, tool_version: '2.0.0' }));
            assert.equal(asked.error?.code, 'tool_version_unavailable');
            assert.match(String(asked.error?.data['reason']), /canary version \(share 0.3\) this task is not in/);
          }
        }
      } finally {
        await first.close();
      }
      const inFirst = [...seen.values()].filter((v) => v === '2.0.0').length;
      assert.ok(inFirst > 0 && inFirst < 40, `both cohorts drawn (${inFirst} of 40 in the canary)`);

      // The canary is widened to everyone: tasks already pinned keep what they had.
      const second = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools: versions(d.base).tools, rollout: { 'test.effect': { canary: { version: '2.0.0', share: 1 } } } });
      try {
        for (const [task, version] of seen) {
          const r = await second.call(envelope('test.effect', { label: `b-${task}` }, { task_id: task }));
          assert.equal(r.tool_version, version, `${task} resumed on its pinned version`);
        }
        const fresh = await second.call(envelope('test.effect', { label: 'fresh' }, { task_id: 'task-new' }));
        assert.equal(fresh.tool_version, '2.0.0');
      } finally {
        await second.close();
      }
    } finally {
      d.cleanup();
    }
  });
});

describe('retirement: refused to new tasks at once, to pinned tasks after the deprecation window', () => {
  it('a restarted runtime resumes a pinned task on the retired version inside its window; a new task is refused it; past the window the pinned task is refused too', async () => {
    const d = tempDirs('tg-rollout');
    const { v1, v2 } = versions(d.base);
    try {
      // Before the new version exists: the task pins 1.0.0.
      const before = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools: [probeTool({ ledger: v1 })] });
      const pinnedRevision = (await before.call(envelope('test.effect', { label: 'old-1' }, { task_id: 'old-task' }))).registry_revision;
      await before.close();

      const retiredAt = iso(Date.now() - 1000);
      const retire = (windowEnds: string): RolloutConfig => ({ 'test.effect': { retire: { '1.0.0': { at: retiredAt, window_ends: windowEnds, replacement: '2.0.0' } } } });
      const open = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools: versions(d.base).tools, rollout: retire(iso(Date.now() + DAY)) });
      try {
        const resumed = await open.call(envelope('test.effect', { label: 'old-2' }, { task_id: 'old-task' }));
        assert.equal(resumed.status, 'succeeded', JSON.stringify(resumed.error));
        assert.equal(resumed.tool_version, '1.0.0');
        assert.equal(resumed.registry_revision, pinnedRevision);
        const fresh = await open.call(envelope('test.effect', { label: 'new-1' }, { task_id: 'new-task' }));
        assert.equal(fresh.tool_version, '2.0.0');
        const asked = await open.call(envelope('test.effect', { label: 'new-2' }, { task_id: 'new-task', tool_version: '1.0.0' }));
        assert.equal(asked.status, 'failed');
        assert.equal(asked.error?.code, 'tool_version_retired');
        assert.deepEqual({ ...asked.error?.data, registry_revision: null, window_ends: null }, {
          tool: 'test.effect',
          version: '1.0.0',
          reason: 'retired_before_pin',
          retired_at: retiredAt,
          window_ends: null,
          replacement: '2.0.0',
          registry_revision: null,
          available: ['2.0.0'],
        });
        assert.match(asked.error?.message ?? '', /retired for tasks started after its retirement; use 2\.0\.0/);
      } finally {
        await open.close();
      }
      assert.deepEqual(ledgerLines(v1), ['old-1', 'old-2']);
      assert.deepEqual(ledgerLines(v2), ['new-1']);

      // The window has ended: the pinned task is refused too, and nothing runs.
      const ended = iso(Date.now() - 500);
      const closed = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools: versions(d.base).tools, rollout: retire(ended) });
      try {
        const late = await closed.call(envelope('test.effect', { label: 'old-3' }, { task_id: 'old-task' }));
        assert.equal(late.error?.code, 'tool_version_retired');
        assert.equal(late.error?.data['reason'], 'window_ended');
        assert.equal(late.error?.data['window_ends'], ended);
        assert.equal((await closed.store.getTask('old-task' as never))?.registry_revision, pinnedRevision, 'the task stays on its pin; it is not moved to 2.0.0 silently');
        // Naming the replacement is the way on; a pinned revision without it says so.
        const moved = await closed.call(envelope('test.effect', { label: 'old-4' }, { task_id: 'old-task', tool_version: '2.0.0' }));
        assert.equal(moved.error?.code, 'tool_version_unavailable');
      } finally {
        await closed.close();
      }
      assert.deepEqual(ledgerLines(v1), ['old-1', 'old-2']);
    } finally {
      d.cleanup();
    }
  });

  it('a retirement dated in the future leaves the version deprecated until then', () => {
    const now = Date.now();
    const rollout = new Rollout({ 'test.*': { retire: { '1.0.0': { at: iso(now + DAY), window_ends: iso(now + 2 * DAY) } } } });
    assert.deepEqual(rollout.lifecycleAt('test.effect', '1.0.0', now), { state: 'deprecated' });
    assert.equal(rollout.lifecycleAt('test.effect', '1.0.0', now + DAY)?.state, 'retired');
    assert.equal(rollout.lifecycleAt('test.effect', '2.0.0', now + DAY), undefined);
    const registry = new Registry(versions('/nonexistent').tools, rollout);
    // A task pinned before `at` keeps 1.0.0 until the window ends; one pinned after is refused.
    const early = registry.manifestFor('early', now);
    const late = registry.manifestFor('late', now + DAY + 1);
    assert.equal(registry.resolve('test.effect', '1.0.0', early, now + DAY + 2).entry.version, '1.0.0');
    assert.throws(() => registry.resolve('test.effect', '1.0.0', early, now + 2 * DAY), (e: unknown) => (e as { code?: string }).code === 'tool_version_retired');
    assert.throws(() => registry.resolve('test.effect', '1.0.0', late, now + DAY + 2), (e: unknown) => (e as { data?: { reason?: string } }).data?.reason === 'retired_before_pin');
  });

  it('a rollout naming no tool, or a canary version no tool has, is invalid_config at open', async () => {
    const d = tempDirs('tg-rollout');
    try {
      for (const rollout of [{ 'test.nothing': { canary: { version: '2.0.0', share: 0.5 } } }, { 'test.effect': { canary: { version: '3.0.0', share: 0.5 } } }, { 'test.effect': { canary: { version: '2.0.0', share: 2 } } }]) {
        await assert.rejects(
          createRuntime({ workspace: d.workspace, stateDir: d.state, tools: versions(d.base).tools, rollout }),
          (e: unknown) => StartupError.isInstance(e) && e.code === 'invalid_config' && JSON.stringify(e.data).includes('/rollout/'),
        );
      }
    } finally {
      d.cleanup();
    }
  });
});

describe('rollout in toolgate.config.json', () => {
  it('retires a built-in tool version for new tasks (a name-only call is refused naming it); a share out of range is invalid_config with its pointer', async () => {
    const d = tempDirs('tg-rollout');
    try {
      const windowEnds = iso(Date.now() + DAY);
      writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ rollout: { 'fs.list': { retire: { '1.0.0': { window_ends: windowEnds } } } } }));
      const rt = await createRuntime({ ...runtimeOptions({ workspace: d.workspace, 'state-dir': d.state }), grant: { tools: ['*'], effects: ['read'], read: ['**'], write: [] } });
      try {
        const r = await rt.call(envelope('fs.list', { path: '.' }, { task_id: 'cfg-1' }));
        assert.equal(r.error?.code, 'tool_version_retired');
        assert.equal(r.error?.data['version'], '1.0.0');
        assert.equal(r.error?.data['window_ends'], windowEnds);
        assert.deepEqual(r.error?.data['available'], []);
        const other = await rt.call(envelope('fs.read', { path: 'toolgate.config.json' }, { task_id: 'cfg-1' }));
        assert.equal(other.status, 'succeeded', 'other tools are untouched');
      } finally {
        await rt.close();
      }
      writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ rollout: { 'fs.list': { canary: { version: '1.0.0', share: 1.5 } } } }));
      assert.throws(
        () => loadConfig(undefined, d.workspace),
        (e: unknown) => StartupError.isInstance(e) && e.code === 'invalid_config' && JSON.stringify(e.data).includes('"pointer":"/rollout/fs.list/canary/share"'),
      );
    } finally {
      d.cleanup();
    }
  });
});
