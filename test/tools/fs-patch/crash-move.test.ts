// A patch that moves (and edits) a file and deletes another, whose runtime is SIGKILLed after the
// effect and before the receipt: the retry with the same key reconciles from the recorded intent
// (every path at its post-image: the source and the deleted file absent, the destination there),
// does not run the patch again, and its recovered receipt is undone by fs.undo as one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envelope, tempDirs } from '../../support/fixtures.js';
import { createRuntime, type TaskGrant } from '../../../src/runtime/index.js';

const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] };
const CHILD = fileURLToPath(new URL('../../runtime/crash-child.ts', import.meta.url));

function crashAtCommit(workspace: string, state: string, env: Record<string, unknown>): Promise<string | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, workspace, state, JSON.stringify(env), 'commit'], { stdio: ['ignore', 'ignore', 'inherit'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve(signal);
    }),
  );
}

void test('a move crashed after its effect is reconciled as completed on retry, applied once, and undoable', async () => {
  const d = tempDirs('tg-crash-move');
  try {
    mkdirSync(join(d.workspace, 'src'));
    writeFileSync(join(d.workspace, 'src/a.txt'), 'a\nb\n');
    writeFileSync(join(d.workspace, 'src/gone.txt'), 'gone\n');
    const args = { files: [{ path: 'src/a.txt', move_to: 'lib/a.txt', edits: [{ old: 'b\n', new: 'B\n' }] }, { path: 'src/gone.txt', delete: true }] };
    const env = envelope('fs.patch', args, { idempotency_key: 'move', task_id: 'crash-move' });
    assert.equal(await crashAtCommit(d.workspace, d.state, env), 'SIGKILL');
    const moved = (): [boolean, string | null, boolean] => [
      existsSync(join(d.workspace, 'src/a.txt')),
      existsSync(join(d.workspace, 'lib/a.txt')) ? readFileSync(join(d.workspace, 'lib/a.txt'), 'utf8') : null,
      existsSync(join(d.workspace, 'src/gone.txt')),
    ];
    assert.deepEqual(moved(), [false, 'a\nB\n', false], 'the effect happened before the crash');
    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT });
    try {
      const retry = await rt.call(env);
      assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
      assert.equal((retry.evidence['reconciliation'] as { settled?: string } | undefined)?.settled, 'completed');
      assert.deepEqual(moved(), [false, 'a\nB\n', false], 'applied once: a second run would find no source');
      const undo = await rt.call(envelope('fs.undo', { receipt_id: retry.receipt_id }, { task_id: 'crash-move' }));
      assert.equal(undo.status, 'succeeded', JSON.stringify(undo.error));
      assert.equal(readFileSync(join(d.workspace, 'src/a.txt'), 'utf8'), 'a\nb\n');
      assert.equal(readFileSync(join(d.workspace, 'src/gone.txt'), 'utf8'), 'gone\n');
      assert.equal(existsSync(join(d.workspace, 'lib/a.txt')), false);
    } finally {
      await rt.close();
    }
  } finally {
    d.cleanup();
  }
});
