import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { envelope, tempDirs } from '../support/fixtures.js';
import { probeTool } from '../support/probe-tools.js';
import { createRuntime } from '../../src/runtime/index.js';
import { Registry } from '../../src/registry/index.js';

test('a pinned task keeps its tool version after the registry moves on', async () => {
  const d = tempDirs();
  const ledger = join(d.base, 'ledger');
  try {
    const before = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools: [probeTool({ ledger })] });
    const first = await before.call(envelope('test.effect', { label: 'a' }, { task_id: 'old-task' }));
    assert.equal(first.tool_version, '1.0.0');
    await before.close();

    // 1.0.0 is retired but its migration window is open; 1.1.0 is the new default.
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const tools = [probeTool({ ledger, deprecation: { state: 'retired', migration_window_ends: future } }), probeTool({ ledger, version: '1.1.0' })];
    const after = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools });
    try {
      assert.notEqual(after.registry.revision, first.registry_revision);
      const resumed = await after.call(envelope('test.effect', { label: 'b' }, { task_id: 'old-task' }));
      assert.equal(resumed.status, 'succeeded');
      assert.equal(resumed.tool_version, '1.0.0');
      assert.equal(resumed.registry_revision, first.registry_revision);
      const fresh = await after.call(envelope('test.effect', { label: 'c' }, { task_id: 'new-task' }));
      assert.equal(fresh.tool_version, '1.1.0');
      assert.equal(fresh.registry_revision, after.registry.revision);
      // A new task may not ask for the retired version.
      const asked = await after.call(envelope('test.effect', { label: 'd' }, { task_id: 'new-task', tool_version: '1.0.0' }));
      assert.equal(asked.error?.code, 'tool_version_retired');
      assert.equal(asked.error?.data['reason'], 'retired_before_pin');
    } finally {
      await after.close();
    }
  } finally {
    d.cleanup();
  }
});

test('the registry revision is the digest of all entries: any change moves it', () => {
  const a = new Registry([probeTool({ ledger: '/dev/null' })]);
  const b = new Registry([probeTool({ ledger: '/dev/null' })]);
  const c = new Registry([probeTool({ ledger: '/dev/null', timeout_ms: 5 })]);
  assert.equal(a.revision, b.revision);
  assert.notEqual(a.revision, c.revision);
  assert.deepEqual(a.manifest.tools.map((t) => `${t.name}@${t.version}`), ['test.effect@1.0.0']);
  assert.equal(a.manifest.tools[0]?.request_schema['additionalProperties'], false, 'unknown argument fields are rejected');
});

test('an unknown tool is unknown_tool and names the known ones', async () => {
  const d = tempDirs();
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state });
  try {
    const r = await rt.call(envelope('fs.teleport', {}));
    assert.equal(r.error?.code, 'unknown_tool');
    assert.ok((r.error?.data['known'] as string[]).includes('fs.read'));
  } finally {
    await rt.close();
    d.cleanup();
  }
});
