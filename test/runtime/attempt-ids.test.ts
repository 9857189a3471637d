// A task that makes no attempt id of its own keeps the one the runtime gave it while 10,000+
// other tasks come and go (least recently used goes first). Before, the map was first-in-first-
// out: the 10,001st new task pushed the active task out and its next call got a new attempt id.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';

it('an active task keeps its attempt id while 10,500 other tasks call', async () => {
  const d = tempDirs('tg-attempts');
  const runtime = await createRuntime({ workspace: d.workspace, stateDir: d.state, store: sqliteStore({ durability: 'normal' }) });
  try {
    const attempts = new Set<string>();
    const active = async (): Promise<void> => {
      attempts.add((await runtime.call(envelope('fs.read', { path: 'missing.txt' }, { task_id: 'task-active' }))).attempt_id);
    };
    await active();
    for (let i = 0; i < 10_500; i++) {
      // an unknown tool: the cheapest call that still gets an attempt id and a receipt
      await runtime.call(envelope('no.such', {}, { task_id: `task-other-${i}` }));
      if (i % 500 === 499) await active();
    }
    assert.equal(attempts.size, 1, `attempt ids of the active task: ${[...attempts].join(', ')}`);
  } finally {
    await runtime.close();
    d.cleanup();
  }
});
