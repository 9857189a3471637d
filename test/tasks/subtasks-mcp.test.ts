// Subtasks through two real MCP sessions (parent and child, each a `toolgate serve --stdio`
// process) on a real git repository: the child works in its own worktree under its token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { childSession, gitTree, parentSession, spawnArgs } from './fixtures.js';

test("a fixer child's patch merges into the parent; its conclusion is checked against the schema", async () => {
  const t = gitTree('tg-sub-fix', { 'src/greet.txt': 'hello\nworld\n', 'README.md': 'readme\n' });
  const parent = await parentSession(t);
  try {
    const spawned = await parent.call('task.spawn', spawnArgs(['src']));
    assert.ok(spawned.ok, JSON.stringify(spawned));
    const { task_id: child, token_file } = spawned.result as { task_id: string; token_file: string };
    const c = await childSession(t, token_file as string);
    try {
      const read = await c.call('fs.read', { path: 'src/greet.txt' });
      assert.equal((read.result as { content: string }).content, 'hello\nworld\n');
      const w = await c.call('fs.write', { path: 'src/greet.txt', content: 'hello\nthere\n', mode: 'create_or_replace' });
      assert.ok(w.ok, JSON.stringify(w));
      // The child's write is in its worktree, not yet in the parent's workspace.
      assert.equal(readFileSync(join(t.workspace, 'src/greet.txt'), 'utf8'), 'hello\nworld\n');
      const bad = await c.call('task.complete', { conclusion: { summary: 3 } });
      assert.equal(bad.error?.code, 'invalid_task_result');
      assert.equal((bad.error?.data['faults'] as { pointer: string }[])[0]?.pointer, '/result/summary');
      const done = await c.call('task.complete', { conclusion: { summary: 'greeting fixed' } });
      assert.ok(done.ok, JSON.stringify(done));
      assert.deepEqual(done.result['changes'], [{ status: 'M', path: 'src/greet.txt' }]);
    } finally {
      await c.close();
    }
    const waited = await parent.call('task.wait', { task_ids: [child], timeout_ms: 10_000 });
    assert.deepEqual(waited.result, { tasks: [{ task_id: child, state: 'completed' }], timed_out: false });
    const r = await parent.call('task.result', { task_id: child });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.result['conclusion'], { summary: 'greeting fixed' });
    assert.equal((r.result['merge'] as { status: string }).status, 'merged');
    assert.equal(readFileSync(join(t.workspace, 'src/greet.txt'), 'utf8'), 'hello\nthere\n');
  } finally {
    await parent.close();
    t.cleanup();
  }
});
