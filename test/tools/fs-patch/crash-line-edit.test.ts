// A line-range edit whose runtime is SIGKILLed after the effect, before the receipt: the retry
// with the same idempotency key reconciles (the file is at the post-image), does not apply the
// edit a second time, and its recovered receipt is undone by fs.undo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
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

void test('a line-range edit crashed after its effect is reconciled as completed on retry, applied once, and undoable', async () => {
  const d = tempDirs('tg-crash-lines');
  try {
    const original = 'a\nb\nc\n';
    writeFileSync(join(d.workspace, 'f.txt'), original);
    // insert_line + a range: applied twice it would leave two "inserted" lines.
    const args = { files: [{ path: 'f.txt', edits: [{ lines: '2', new: 'B\n', expect: 'b' }, { insert_line: 3, new: 'inserted', expect: 'c' }] }] };
    const env = envelope('fs.patch', args, { idempotency_key: 'line-edit', task_id: 'crash-lines' });
    assert.equal(await crashAtCommit(d.workspace, d.state, env), 'SIGKILL');
    assert.equal(readFileSync(join(d.workspace, 'f.txt'), 'utf8'), 'a\nB\nc\ninserted\n', 'the effect happened before the crash');
    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT });
    try {
      const retry = await rt.call(env);
      assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
      assert.equal((retry.evidence['reconciliation'] as { settled?: string } | undefined)?.settled, 'completed');
      assert.equal(readFileSync(join(d.workspace, 'f.txt'), 'utf8'), 'a\nB\nc\ninserted\n', 'applied once');
      const undo = await rt.call(envelope('fs.undo', { receipt_id: retry.receipt_id }, { task_id: 'crash-lines' }));
      assert.equal(undo.status, 'succeeded', JSON.stringify(undo.error));
      assert.equal(readFileSync(join(d.workspace, 'f.txt'), 'utf8'), original);
    } finally {
      await rt.close();
    }
  } finally {
    d.cleanup();
  }
});
