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

test('a conflicting patch is reported with its paths and nothing of it is written', async () => {
  const t = gitTree('tg-sub-conflict', { 'src/a.txt': 'one\ntwo\nthree\n', 'src/b.txt': 'alpha\nbeta\n' });
  const parent = await parentSession(t);
  try {
    const spawned = await parent.call('task.spawn', spawnArgs(['src']));
    const { task_id: child, token_file } = spawned.result as { task_id: string; token_file: string };
    // The parent changes line 2 of a.txt after the child started from the old revision.
    assert.ok((await parent.call('fs.write', { path: 'src/a.txt', content: 'one\nTWO (parent)\nthree\n', mode: 'create_or_replace' })).ok);
    const c = await childSession(t, token_file);
    try {
      assert.ok((await c.call('fs.write', { path: 'src/a.txt', content: 'one\n2 (child)\nthree\n', mode: 'create_or_replace' })).ok);
      assert.ok((await c.call('fs.write', { path: 'src/b.txt', content: 'alpha\nBETA\n', mode: 'create_or_replace' })).ok);
      assert.ok((await c.call('task.complete', { conclusion: { summary: 'changed both' } })).ok);
    } finally {
      await c.close();
    }
    const r = await parent.call('task.result', { task_id: child });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.result['merge'], { status: 'conflict', conflicts: [{ path: 'src/a.txt', reason: 'both_changed' }] });
    // All or nothing: b.txt, which would merge cleanly, is not written either.
    assert.equal(readFileSync(join(t.workspace, 'src/a.txt'), 'utf8'), 'one\nTWO (parent)\nthree\n');
    assert.equal(readFileSync(join(t.workspace, 'src/b.txt'), 'utf8'), 'alpha\nbeta\n');
    // The patch stays available by digest, and the parent's own change is untouched.
    assert.match(String(r.result['patch_digest']), /^sha256:/);
  } finally {
    await parent.close();
    t.cleanup();
  }
});

test('a reviewer child with read-only tools cannot write: not its worktree, not the parent workspace', async () => {
  const t = gitTree('tg-sub-review', { 'src/a.txt': 'code\n' });
  const parent = await parentSession(t);
  try {
    const spawned = await parent.call('task.spawn', spawnArgs(['src'], { restrictions: { effects: ['read'] } }));
    assert.ok(spawned.ok, JSON.stringify(spawned));
    const { task_id: child, token_file } = spawned.result as { task_id: string; token_file: string };
    const worktree = await (async () => {
      const c = await childSession(t, token_file);
      try {
        assert.ok((await c.call('fs.read', { path: 'src/a.txt' })).ok);
        const attempts = [
          await c.call('fs.write', { path: 'src/a.txt', content: 'pwned\n', mode: 'create_or_replace' }),
          await c.call('fs.write', { path: 'src/new.txt', content: 'pwned\n' }),
          await c.call('fs.delete', { path: 'src/a.txt' }),
          await c.call('shell.exec', { argv: ['sh', '-c', 'echo pwned > src/a.txt'] }),
        ];
        for (const a of attempts) assert.equal(a.error?.code, 'policy_denied', JSON.stringify(a));
        const done = await c.call('task.complete', { conclusion: { summary: 'looks fine', findings: ['none'] } });
        assert.ok(done.ok, JSON.stringify(done));
        assert.deepEqual(done.result['changes'], []);
      } finally {
        await c.close();
      }
      return join(`${t.state}.worktrees`, child);
    })();
    const r = await parent.call('task.result', { task_id: child });
    assert.deepEqual(r.result['merge'], { status: 'merged', written: [], deleted: [], revision: null });
    // 0 crossings: nothing written anywhere.
    assert.equal(readFileSync(join(t.workspace, 'src/a.txt'), 'utf8'), 'code\n');
    assert.equal(existsSync(join(t.workspace, 'src/new.txt')), false);
    assert.equal(existsSync(worktree), false, 'the worktree is removed once the result is taken');
  } finally {
    await parent.close();
    t.cleanup();
  }
});

test('a child writes only the paths it owns', async () => {
  const t = gitTree('tg-sub-owned', { 'src/a.txt': 'a\n', 'docs/d.txt': 'd\n' });
  const parent = await parentSession(t);
  try {
    const { token_file } = (await parent.call('task.spawn', spawnArgs(['src']))).result as { token_file: string };
    const c = await childSession(t, token_file);
    try {
      const outside = await c.call('fs.write', { path: 'docs/d.txt', content: 'x\n', mode: 'create_or_replace' });
      assert.equal(outside.error?.code, 'policy_denied');
      assert.ok((await c.call('fs.write', { path: 'src/a.txt', content: 'b\n', mode: 'create_or_replace' })).ok);
    } finally {
      await c.close();
    }
  } finally {
    await parent.close();
    t.cleanup();
  }
});
