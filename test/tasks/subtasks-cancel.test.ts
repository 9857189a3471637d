// Cancelling a subtask from the parent's MCP session while the child's session runs a command:
// the child's call ends with a receipt, its processes are gone, its host process exits; and a
// wait that would close a cycle fails at once with `deadlock`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createRuntime } from '../../src/runtime/index.js';
import type { TaskId } from '../../src/protocol/index.js';
import { alive, waitFor } from '../support/processes.js';
import { describeMarked, newMarker, processesWithMarker, sleepersWithMarker } from '../sandbox/fixtures.js';
import { childSession, gitTree, parentSession, spawnArgs } from './fixtures.js';

test('parent cancel: the child subtree ends, its running call ends with its receipt, 0 processes are left', async () => {
  const t = gitTree('tg-sub-cancel', { 'src/a.txt': 'a\n' });
  const parent = await parentSession(t);
  const marker = newMarker();
  try {
    const { task_id: child, token_file } = (await parent.call('task.spawn', spawnArgs(['src']))).result as { task_id: string; token_file: string };
    const c = await childSession(t, token_file);
    const pid = c.transport.pid;
    try {
      // The child spawns a grandchild too: the cancel reaches the whole subtree.
      const grand = await c.call('task.spawn', spawnArgs(['src/a.txt'], { budget: { calls: 3 } }));
      assert.ok(grand.ok, JSON.stringify(grand));
      const running = c.call('shell.exec', { argv: ['sh', '-c', 'sleep 300 & sleep 300; wait'], env: { set: { TG_MARKER: marker } } });
      running.catch(() => {});
      assert.ok(await waitFor(() => sleepersWithMarker(marker).length >= 2, 30_000), 'the command runs');
      const cancelled = await parent.call('task.cancel', { task_id: child });
      assert.ok(cancelled.ok, JSON.stringify(cancelled));
      assert.deepEqual(new Set(cancelled.result['cancelled'] as string[]), new Set([child, (grand.result as { task_id: string }).task_id]));
      // task.cancel answers once the child's host ended the call: its receipt is already there.
      assert.equal(cancelled.result['calls_ended'], true);
      const early = await createRuntime({ workspace: t.workspace, stateDir: t.state });
      try {
        const rs = await early.store.listReceipts({ task: child as TaskId });
        assert.ok(rs.some((r) => r.tool === 'shell.exec' && r.status === 'cancelled'), JSON.stringify(rs.map((r) => [r.tool, r.status])));
      } finally {
        await early.close();
      }
      // The child's host sees the cancellation, ends the call (its answer may or may not reach the client) and exits.
      await running.then(
        (a) => assert.equal(a.error?.code, 'cancelled'),
        () => {},
      );
      assert.ok(await waitFor(() => processesWithMarker(marker).length === 0, 30_000), `survivors: ${describeMarked(marker)}`);
      assert.ok(await waitFor(() => pid === null || pid === undefined || !alive(pid), 30_000), 'the child host exits');
    } finally {
      await c.close();
    }
    const rt = await createRuntime({ workspace: t.workspace, stateDir: t.state, tasks: {} });
    try {
      const receipts = await rt.store.listReceipts({ task: child as TaskId });
      assert.deepEqual(receipts.map((r) => `${r.tool} ${r.status}`).sort(), ['shell.exec cancelled', 'task.spawn succeeded']);
      const sub = await rt.tasks?.get(child as TaskId);
      assert.equal(sub?.state, 'cancelled');
      assert.equal(existsSync(join(`${t.state}.worktrees`, child)), false, 'the worktree is removed');
    } finally {
      await rt.close();
    }
  } finally {
    await parent.close();
    t.cleanup();
  }
});

test('a wait that would close a cycle fails at once with deadlock; the other wait goes on', async () => {
  const t = gitTree('tg-sub-deadlock', { 'src/a.txt': 'a\n' });
  const parent = await parentSession(t, 'tsk_waiter');
  try {
    const { task_id: child, token_file } = (await parent.call('task.spawn', spawnArgs(['src']))).result as { task_id: string; token_file: string };
    const c = await childSession(t, token_file);
    try {
      const parentWait = parent.call('task.wait', { task_ids: [child], timeout_ms: 110_000 });
      // Once the parent's edge is in the store (it waits), the child's wait on the parent closes the cycle.
      const db = new Database(join(t.state, 'toolgate.db'), { readonly: true });
      try {
        const edge = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM task_waits WHERE waiter = 'tsk_waiter'`);
        assert.ok(await waitFor(() => (edge.get()?.n ?? 0) > 0, 60_000), 'the parent waits');
      } finally {
        db.close();
      }
      const answer = await c.call('task.wait', { task_ids: ['tsk_waiter'], timeout_ms: 1_000 });
      assert.equal(answer.error?.code, 'deadlock', JSON.stringify(answer));
      assert.deepEqual(answer.error?.data['cycle'], [child, 'tsk_waiter', child]);
      // A task waiting on itself is the shortest cycle.
      assert.equal((await c.call('task.wait', { task_ids: [child] })).error?.code, 'deadlock');
      assert.ok((await c.call('task.complete', { conclusion: { summary: 'done' } })).ok);
      const waited = await parentWait;
      assert.deepEqual(waited.result, { tasks: [{ task_id: child, state: 'completed' }], timed_out: false });
    } finally {
      await c.close();
    }
  } finally {
    await parent.close();
    t.cleanup();
  }
});
