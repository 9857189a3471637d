// `toolgate audit verify` covers a parent's chain and its child's, and the links between them:
// the spawn receipt names the child, the child's completion carries the commit its row records,
// the parent's result receipt names the child's completion receipt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PROTOCOL_VERSION, type TaskId } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { BIN, gitTree, spawnArgs } from './fixtures.js';

function call(rt: Runtime, task: string, tool: string, args: Record<string, unknown>) {
  return rt.call({ protocol_version: PROTOCOL_VERSION, task_id: task, tool, arguments: args });
}

test('audit verify checks the parent and child chains and their links; a tampered link is named', async () => {
  const t = gitTree('tg-sub-audit', { 'src/a.txt': 'a\n' });
  const grant = { tools: ['*'], effects: ['read' as const, 'write' as const, 'execute' as const], read: ['**'], write: ['**'] };
  const rt = await createRuntime({ workspace: t.workspace, stateDir: t.state, grant, tasks: {} });
  let child: Runtime | null = null;
  try {
    const spawned = await call(rt, 'root', 'task.spawn', spawnArgs(['src']));
    const id = (spawned.result as { task_id: string }).task_id;
    const sub = await rt.tasks?.get(id as TaskId);
    child = await createRuntime({ workspace: sub?.record.worktree ?? '', stateDir: t.state, tasks: {} });
    assert.equal((await call(child, id, 'fs.write', { path: 'src/a.txt', content: 'b\n', mode: 'create_or_replace' })).status, 'succeeded');
    assert.equal((await call(child, id, 'task.complete', { conclusion: { summary: 's' } })).status, 'succeeded');
    const result = await call(rt, 'root', 'task.result', { task_id: id });
    assert.equal(result.status, 'succeeded');
    // The result commit outlives the worktree: a ref keeps it from git gc.
    const commit = (result.result as { commit: string }).commit;
    assert.equal(execFileSync('git', ['-C', t.workspace, 'rev-parse', `refs/toolgate/tasks/${id}`], { encoding: 'utf8' }).trim(), commit);
  } finally {
    await child?.close();
    await rt.close();
  }
  try {
    const out = JSON.parse(execFileSync(process.execPath, [BIN, 'audit', 'verify', '--json', '--workspace', t.workspace, '--state-dir', t.state], { encoding: 'utf8' })) as {
      ok: boolean;
      tasks: number;
      task_links: { ok: boolean; subtasks: number; links: number };
    };
    assert.equal(out.ok, true);
    assert.equal(out.tasks, 2);
    assert.deepEqual({ ...out.task_links, broken: undefined }, { ok: true, subtasks: 1, links: 3, broken: undefined });

    // The row says another commit than the child's completion receipt: the link breaks.
    const db = new Database(join(t.state, 'toolgate.db'));
    db.prepare(`UPDATE subtasks SET record = json_set(record, '$.result.commit', '0000000000000000000000000000000000000000')`).run();
    db.close();
    const broken = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--workspace', t.workspace, '--state-dir', t.state], { encoding: 'utf8' });
    assert.equal(broken.status, 1);
    assert.match(broken.stdout, /subtask tsk_\w+: complete: no task.complete receipt carries the commit its row records/);
  } finally {
    t.cleanup();
  }
});
