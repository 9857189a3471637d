// The task tree (Store.subtasks, src/tasks): a spawn's check and insert are one step, so the
// tree's bounds hold against concurrent spawns from several store instances; a wait's cycle
// check and insert likewise; a state change is a compare-and-set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskId } from '../../../src/protocol/index.js';
import type { SubtaskRow } from '../../../src/store/index.js';
import type { ConformanceBackend } from './backend.js';
import { withState } from './fixtures.js';

function row(task: string, parent = 'root'): SubtaskRow {
  const now = new Date().toISOString();
  return { task_id: task as TaskId, parent_id: parent as TaskId, root_id: 'root' as TaskId, depth: 1, state: 'running', token_digest: `digest-${task}`, record: { owned: [task], nested: { n: 1 } }, created_at: now, updated_at: now };
}

export function subtaskCases(backend: ConformanceBackend): void {
  describe('subtasks', () => {
    it('stores, finds by id and token digest, and lists a tree', async () => {
      await withState(backend, async ({ open }) => {
        const s = (await open()).subtasks;
        assert.ok(s, 'the backend keeps a task tree');
        assert.equal(await s.insertSubtask(row('a'), () => null), null);
        assert.equal(await s.insertSubtask(row('b', 'a'), () => null), null);
        assert.deepEqual((await s.getSubtask('a' as TaskId))?.record, { owned: ['a'], nested: { n: 1 } });
        assert.equal((await s.subtaskByToken('digest-b'))?.task_id, 'b');
        assert.deepEqual((await s.listSubtasks({ root: 'root' as TaskId })).map((r) => r.task_id).sort(), ['a', 'b']);
        assert.deepEqual((await s.listSubtasks({ parent: 'a' as TaskId })).map((r) => r.task_id), ['b']);
        assert.equal(await s.getSubtask('nope' as TaskId), undefined);
      });
    });

    it('concurrent spawns from several stores: the check sees every earlier insert (a bound of 2 admits exactly 2)', async () => {
      await withState(backend, async ({ open }) => {
        const stores = await Promise.all([open(), open(), open(), open(), open()]);
        const results = await Promise.all(stores.map((st, i) => st.subtasks?.insertSubtask(row(`c${i}`), (tree) => (tree.length >= 2 ? 'full' : null))));
        assert.equal(results.filter((r) => r === null).length, 2);
        assert.equal(results.filter((r) => r === 'full').length, 3);
        assert.equal((await stores[0]?.subtasks?.listSubtasks({ root: 'root' as TaskId }))?.length, 2);
      });
    });

    it('a state change is a compare-and-set: of two concurrent ends, one wins', async () => {
      await withState(backend, async ({ open }) => {
        const [x, y] = await Promise.all([open(), open()]);
        await x.subtasks?.insertSubtask(row('a'), () => null);
        const moved = await Promise.all([x.subtasks?.updateSubtask('a' as TaskId, ['running'], 'cancelled', { by: 'x' }), y.subtasks?.updateSubtask('a' as TaskId, ['running'], 'completed', { by: 'y' })]);
        assert.deepEqual(moved.filter(Boolean).length, 1);
        const now = await x.subtasks?.getSubtask('a' as TaskId);
        assert.equal(now?.state, moved[0] ? 'cancelled' : 'completed');
      });
    });

    it('two opposite waits added at once: the second sees the first and is refused; expired edges do not count', async () => {
      await withState(backend, async ({ open }) => {
        const [x, y] = await Promise.all([open(), open()]);
        const edge = (w: string, t: string, until: number) => ({ waiter: w as TaskId, target: t as TaskId, until });
        const closes = (w: string, t: string) => (live: readonly { waiter: TaskId; target: TaskId }[]) => (live.some((e) => e.waiter === t && e.target === w) ? 'cycle' : null);
        const now = Date.now();
        const r = await Promise.all([x.subtasks?.addWaits([edge('a', 'b', now + 60_000)], now, closes('a', 'b')), y.subtasks?.addWaits([edge('b', 'a', now + 60_000)], now, closes('b', 'a'))]);
        assert.deepEqual([...r].sort(), ['cycle', null].sort());
        await x.subtasks?.removeWaits('a' as TaskId, ['b' as TaskId]);
        await y.subtasks?.removeWaits('b' as TaskId, ['a' as TaskId]);
        assert.equal(await x.subtasks?.addWaits([edge('c', 'd', now - 1)], now - 10, () => null), null);
        assert.equal(await y.subtasks?.addWaits([edge('d', 'c', now + 60_000)], now, closes('d', 'c')), null, 'the expired edge is gone');
      });
    });
  });
}
