// Task pins and the workspace revision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConformanceBackend } from './backend.js';
import { freshTask, manifestOf, withState } from './fixtures.js';

export function taskCases(backend: ConformanceBackend): void {
  describe('tasks and revisions', () => {
    it('a task is pinned to the manifest of its first call, for every store on the state', async () => {
      await withState(backend, async ({ open }) => {
        const a = await open();
        const task = freshTask();
        assert.equal(await a.getTask(task), undefined);
        const first = manifestOf('sha256:first');
        assert.deepEqual(await a.pinTask(task, first), first);
        assert.deepEqual(await a.pinTask(task, manifestOf('sha256:second')), first, 'a later registry does not move the pin');
        const b = await open();
        assert.deepEqual(await b.pinTask(task, manifestOf('sha256:third')), first);
        assert.equal((await b.getTask(task))?.registry_revision, 'sha256:first');
        assert.deepEqual(await b.pinTask(freshTask(), manifestOf('sha256:second')), manifestOf('sha256:second'), 'another task pins its own');
      });
    });

    it('the revision starts at 0 and every advance, from any store, gives a new one', async () => {
      await withState(backend, async ({ open }) => {
        const a = await open();
        const b = await open();
        assert.equal(await a.currentRevision(), 0);
        const got = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).advanceRevision()));
        assert.deepEqual([...got].sort((x, y) => x - y), Array.from({ length: 20 }, (_, i) => i + 1));
        assert.equal(await b.currentRevision(), 20);
      });
    });
  });
}
