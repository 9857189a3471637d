// A task resumed under another runtime says so: a task notes the runtime it started on, and the
// first receipt under a different runtime digest carries runtime_changed with both digests.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { digestOf, type Digest, type Receipt, type TaskId } from '../../src/protocol/index.js';
import { runningRuntimeDigest } from '../../src/provenance/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';

const A = digestOf({ runtime: 'A' });
const B = digestOf({ runtime: 'B' });

describe('runtime_changed', () => {
  it('the first receipt of a task under another runtime names both digests; later ones do not', async () => {
    const d = tempDirs('tg-rtchg');
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    const open = (digest: Digest): Promise<Runtime> => createRuntime({ workspace: d.workspace, stateDir: d.state, runtimeDigest: digest });
    const read = (rt: Runtime, task = 'task-1'): Promise<Receipt> => rt.call(envelope('fs.read', { path: 'a.txt' }, { task_id: task }));
    try {
      let rt = await open(A);
      const first = await read(rt);
      assert.equal(first.status, 'succeeded');
      assert.equal(first.runtime_digest, A);
      assert.equal(first.runtime_changed, undefined);
      assert.ok(first.host_tools && first.host_tools.length > 0, 'the first receipt of a task records the host tools');
      const second = await read(rt);
      assert.equal(second.runtime_digest, A);
      assert.equal(second.host_tools, undefined, 'only the first');
      await rt.close();

      // The task resumes under runtime B: five calls at once, one of them carries the change.
      rt = await open(B);
      const resumed = await Promise.all(Array.from({ length: 5 }, () => read(rt)));
      assert.ok(resumed.every((r) => r.status === 'succeeded' && r.runtime_digest === B));
      const told = resumed.filter((r) => r.runtime_changed !== undefined);
      assert.equal(told.length, 1);
      assert.deepEqual(told[0]?.runtime_changed, { from: A, to: B });
      assert.ok(told[0]?.host_tools, 'a changed runtime records its host tools too');
      assert.equal((await read(rt)).runtime_changed, undefined);
      // A task that starts under B has nothing to say about a change.
      const other = await read(rt, 'task-2');
      assert.equal(other.runtime_changed, undefined);
      assert.ok(other.host_tools);
      await rt.close();

      // Rolled back to A: the task says so again, from B to A.
      rt = await open(A);
      assert.deepEqual((await read(rt)).runtime_changed, { from: B, to: A });
      const task = await rt.store.getTask('task-1' as TaskId);
      assert.equal(task?.runtime_digest, A, 'the runtime the task started on');
      assert.ok(task?.registry_revision.startsWith('sha256:'), 'and the registry revision it started on');
      assert.equal((await rt.store.getTask('task-2' as TaskId))?.runtime_digest, B);
      // The fields are in the stored, digested receipts: the chain verifies with them.
      const stored = await rt.store.listReceipts({ task: 'task-1' as TaskId });
      assert.deepEqual(stored.filter((r) => r.runtime_changed).map((r) => r.runtime_changed), [{ from: B, to: A }, { from: A, to: B }]);
      const chain = await rt.store.verifyChain('task-1' as TaskId);
      assert.equal(chain.ok, true);
      await rt.close();
    } finally {
      d.cleanup();
    }
  });

  it('without runtimeDigest, receipts name the running package by its manifest digest', async () => {
    const d = tempDirs('tg-rtdef');
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state });
    try {
      const r = await rt.call(envelope('fs.read', { path: 'a.txt' }));
      assert.equal(r.runtime_digest, await runningRuntimeDigest());
      assert.match(r.runtime_digest ?? '', /^sha256:[0-9a-f]{64}$/);
      // A refusal before the tool is resolved names the runtime too.
      const refused = await rt.call(envelope('no.such.tool', {}));
      assert.equal(refused.status, 'failed');
      assert.equal(refused.runtime_digest, r.runtime_digest);
    } finally {
      await rt.close();
      d.cleanup();
    }
  });
});
