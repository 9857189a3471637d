// Rollout of an upstream's new version (docs/registry.md#rollout): two real fixture servers under
// bubblewrap serve one namespace, `issues`, the old one as 1.0.0 and the new one as 2.0.0; a
// canary share of new tasks pins 2.0.0, a restarted runtime serves each pinned task from the
// server of its version, and a retired 1.0.0 is refused to new tasks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readlinkSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inCanary, type RolloutConfig } from '../../src/registry/index.js';
import { StartupError, type Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import type { UpstreamsConfig } from '../../src/upstream/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { FIXTURE } from './support.js';

const DAY = 86_400_000;

/** Each server's data dir holds one issue whose title names the server: the answer shows which one ran. */
function servers(base: string, nextVersion = '2.0.0'): UpstreamsConfig {
  const dataOf = (name: string, title: string): string => {
    const d = join(base, name);
    mkdirSync(d, { recursive: true });
    writeFileSync(join(d, 'effects.jsonl'), JSON.stringify({ id: 1, repo: 'acme/app', title, key: null }) + '\n');
    return d;
  };
  return {
    issues: { command: process.execPath, args: [FIXTURE], data_dir: dataOf('old', 'served by the old server'), tools: { list_issues: { effect: 'read' } } },
    'issues-next': {
      command: process.execPath,
      args: [FIXTURE],
      data_dir: dataOf('next', 'served by the new server'),
      namespace: 'issues',
      tools: { list_issues: { effect: 'read', version: nextVersion } },
    },
  };
}

function servedBy(r: Receipt): string {
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  const structured = (r.result as { structured: { issues: { title: string }[] } }).structured;
  return structured.issues[0]?.title ?? '(none)';
}

async function open(d: ReturnType<typeof tempDirs>, rollout: RolloutConfig): Promise<Runtime> {
  return createRuntime({ workspace: d.workspace, stateDir: d.state, grant: { tools: ['*'], effects: ['read'], read: ['**'], write: [] }, upstreams: servers(d.base), rollout });
}

const list = (rt: Runtime, task: string, extra: Record<string, unknown> = {}): Promise<Receipt> => rt.call(envelope('issues.list_issues', { repo: 'acme/app' }, { task_id: task, ...extra }));

describe('upstream rollout: two servers, one namespace, two versions', () => {
  it('a canary share of new tasks reaches the new server; after a restart pinned tasks stay on their server; a retired 1.0.0 is refused to new tasks', async () => {
    const d = tempDirs('tg-upstream-rollout');
    const tasks = Array.from({ length: 16 }, (_, i) => `task-${i}`);
    const expected = new Map(tasks.map((t) => [t, inCanary(t, 'issues.*', '2.0.0', 0.5) ? '2.0.0' : '1.0.0']));
    assert.ok(new Set(expected.values()).size === 2, 'the ids draw both cohorts');
    try {
      const first = await open(d, { 'issues.*': { canary: { version: '2.0.0', share: 0.5 } } });
      try {
        assert.deepEqual(first.registry.manifest.tools.filter((e) => e.name === 'issues.list_issues').map((e) => e.version), ['1.0.0', '2.0.0']);
        for (const t of tasks) {
          const r = await list(first, t);
          assert.equal(r.tool_version, expected.get(t), t);
          assert.equal(servedBy(r), expected.get(t) === '2.0.0' ? 'served by the new server' : 'served by the old server');
        }
      } finally {
        await first.close();
      }

      // Everyone new gets 2.0.0 now and 1.0.0 is retired, with a day's window for pinned tasks.
      const second = await open(d, { 'issues.*': { canary: { version: '2.0.0', share: 1 }, retire: { '1.0.0': { window_ends: new Date(Date.now() + DAY).toISOString(), replacement: '2.0.0' } } } });
      try {
        for (const t of tasks) {
          const r = await list(second, t);
          assert.equal(r.tool_version, expected.get(t), `${t} resumed on its pinned version`);
          assert.equal(servedBy(r), expected.get(t) === '2.0.0' ? 'served by the new server' : 'served by the old server');
        }
        assert.equal(servedBy(await list(second, 'task-new')), 'served by the new server');
        const asked = await list(second, 'task-new', { tool_version: '1.0.0' });
        assert.equal(asked.error?.code, 'tool_version_retired');
        assert.equal(asked.error?.data['reason'], 'retired_before_pin');
        assert.equal(asked.error?.data['replacement'], '2.0.0');
      } finally {
        await second.close();
      }
    } finally {
      d.cleanup();
    }
  });

  it('two upstreams of one namespace serving the same version are refused at open, and nothing is left running', async () => {
    const d = tempDirs('tg-upstream-rollout');
    try {
      await assert.rejects(
        createRuntime({ workspace: d.workspace, stateDir: d.state, upstreams: servers(d.base, '1.0.0') }),
        (e: unknown) => StartupError.isInstance(e) && e.code === 'invalid_config' && /issues\.list_issues@1\.0\.0 is served by upstreams issues and issues-next/.test(e.message),
      );
      // Both servers were started to read their tools; both were stopped (a server's cwd is its data dir).
      const dataDirs = ['old', 'next'].map((n) => realpathSync(join(d.base, n)));
      const left = readdirSync('/proc').filter((p) => {
        try {
          return /^\d+$/.test(p) && dataDirs.includes(readlinkSync(`/proc/${p}/cwd`));
        } catch {
          return false; // gone
        }
      });
      assert.deepEqual(left, []);
    } finally {
      d.cleanup();
    }
  });
});
