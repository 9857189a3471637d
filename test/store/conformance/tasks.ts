// Task pins and the workspace revision.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Digest } from '../../../src/protocol/index.js';
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

    it('a task notes the runtime it started on and each change of runtime, atomically across stores', async () => {
      await withState(backend, async ({ open }) => {
        const a = await open();
        const b = await open();
        const task = freshTask();
        await a.pinTask(task, manifestOf('sha256:rev'));
        // Of concurrent first notes from two stores, exactly one is the task's first.
        const firsts = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).noteRuntime(task, 'sha256:one' as Digest)));
        assert.equal(firsts.filter((n) => n.previous === null).length, 1);
        assert.ok(firsts.every((n) => n.started_on === 'sha256:one'));
        assert.deepEqual(await b.noteRuntime(task, 'sha256:two' as Digest), { started_on: 'sha256:one', previous: 'sha256:one' });
        assert.deepEqual(await a.noteRuntime(task, 'sha256:two' as Digest), { started_on: 'sha256:one', previous: 'sha256:two' });
        assert.deepEqual(await a.noteRuntime(task, 'sha256:one' as Digest), { started_on: 'sha256:one', previous: 'sha256:two' });
        assert.equal((await b.getTask(task))?.runtime_digest, 'sha256:one');
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
