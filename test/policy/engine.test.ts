import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { attenuate, PolicyEngine } from '../../src/policy/index.js';
import type { TaskId } from '../../src/protocol/index.js';
import { A1, NOW, readOf, stateFile, T1, testRegistry, writeOf } from './fixtures.js';

const manifest = testRegistry().manifest;

describe('PolicyEngine', () => {
  const state = stateFile();
  after(() => state.dispose());

  it('issues each task its grant at its first call and keeps it across restarts, whatever the runtime now defaults to', async () => {
    const first = new PolicyEngine({ manifest, stores: state.stores, grant: { tools: ['*'], effects: ['read'], read: ['src/**'] } });
    const issued = await first.grantFor(T1);
    assert.equal(issued.grant.subject.task_id, T1);
    assert.equal((await first.authorize(readOf('src/a.ts'), { task_id: T1, attempt_id: A1, now: NOW })).outcome, 'allow');

    const reopened = state.reopen();
    try {
      const wider = new PolicyEngine({ manifest, stores: reopened.stores, grant: { tools: ['*'], effects: ['read', 'write'], read: ['**'], write: ['**'] } });
      assert.equal((await wider.grantFor(T1)).digest, issued.digest);
      assert.deepEqual((await wider.authorize(readOf('docs/x.md'), { task_id: T1, attempt_id: A1, now: NOW })).determining, ['grant.read']);
      // a new task gets the new default
      assert.equal((await wider.authorize(readOf('docs/x.md'), { task_id: 'task_new' as TaskId, attempt_id: A1, now: NOW })).outcome, 'allow');

      // a subtask issued an attenuated grant is held to it; its parent is not
      const sub = 'task_sub' as TaskId;
      const child = attenuate((await wider.grantFor('task_new' as TaskId)).grant, { effects: ['read'], read: ['docs/**'] }, { ...issued.grant.subject, task_id: sub });
      assert.equal((await wider.issueGrant(child)).grant.parent, (await wider.grantFor('task_new' as TaskId)).digest);
      assert.equal((await wider.authorize(readOf('docs/x.md'), { task_id: sub, attempt_id: A1, now: NOW })).outcome, 'allow');
      assert.deepEqual((await wider.authorize(readOf('src/a.ts'), { task_id: sub, attempt_id: A1, now: NOW })).determining, ['grant.caveats[0].read']);
      assert.deepEqual((await wider.authorize(writeOf('docs/x.md'), { task_id: sub, attempt_id: A1, now: NOW })).determining, ['grant.effects']);
      assert.equal((await wider.authorize(writeOf('docs/x.md'), { task_id: 'task_new' as TaskId, attempt_id: A1, now: NOW })).outcome, 'allow');
    } finally {
      reopened.close();
    }
  });
});
