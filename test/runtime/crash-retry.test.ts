// Items 8 and 9 of issue 10: a runtime SIGKILLed after its effect, before the receipt, and the
// same call retried with the same idempotency key. The retry must neither repeat the effect nor
// refuse because the effect already happened: it reconciles the record and recovers the receipt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime, type TaskGrant } from '../../src/runtime/index.js';
import type { Receipt } from '../../src/protocol/index.js';

const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] };
const CHILD = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

function crashChild(workspace: string, state: string, env: Record<string, unknown>, point: 'commit' | 'torn-rename'): Promise<{ signal: string | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, workspace, state, JSON.stringify(env), point], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.once('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ signal, out });
    }),
  );
}

function effectStates(state: string): string[] {
  const db = new Database(join(state, 'toolgate.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT state FROM effects ORDER BY created_at`).all() as { state: string }[]).map((r) => r.state);
  } finally {
    db.close();
  }
}

/** Crashes a child after the effect, then retries in this process; returns the retry's receipt. */
async function crashThenRetry(prepare: (ws: string) => void, call: Record<string, unknown>, point: 'commit' | 'torn-rename' = 'commit', afterCrash: (ws: string) => void = () => {}) {
  const dirs = tempDirs('tg-crash');
  prepare(dirs.workspace);
  const env = envelope(call['tool'] as string, call['arguments'] as Record<string, unknown>, { idempotency_key: 'retry-me', task_id: 'crash-task' });
  const died = await crashChild(dirs.workspace, dirs.state, env, point);
  assert.equal(died.signal, 'SIGKILL', `the child was killed at ${point} (${died.out})`);
  afterCrash(dirs.workspace);
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, grant: GRANT });
  try {
    const retry: Receipt = await rt.call(env);
    const again: Receipt = await rt.call(env);
    return { retry, again, dirs, states: effectStates(dirs.state) };
  } finally {
    await rt.close();
  }
}

test('fs.patch retried after a crash after its effect: the line is inserted once, the receipt recovered (3 of 3 runs)', async () => {
  const runs: { inserted: number; status: string; settled: unknown; replayed: boolean; states: string[] }[] = [];
  for (let run = 0; run < 3; run++) {
    const r = await crashThenRetry(
      (ws) => writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n'),
      { tool: 'fs.patch', arguments: { files: [{ path: 'a.txt', edits: [{ old: 'one\n', new: 'one\ninserted\n' }] }] } },
    );
    try {
      const text = readFileSync(join(r.dirs.workspace, 'a.txt'), 'utf8');
      runs.push({
        inserted: text.split('\n').filter((l) => l === 'inserted').length,
        status: r.retry.status,
        settled: (r.retry.evidence['reconciliation'] as { settled?: string } | undefined)?.settled,
        replayed: r.again.replay === true && r.again.receipt_id === r.retry.receipt_id,
        states: r.states,
      });
    } finally {
      r.dirs.cleanup();
    }
  }
  assert.equal(runs.filter((x) => x.inserted !== 1).length, 0, `runs where the line was inserted twice: ${JSON.stringify(runs)}`);
  for (const x of runs) assert.deepEqual(x, { inserted: 1, status: 'succeeded', settled: 'completed', replayed: true, states: ['completed'] });
});

test('fs.write create_or_replace retried after a crash after its effect keeps the written inode, and the recovered receipt can be undone', async () => {
  let inodeBefore = 0;
  const r = await crashThenRetry(
    (ws) => writeFileSync(join(ws, 'w.txt'), 'old\n'),
    { tool: 'fs.write', arguments: { path: 'w.txt', content: 'new\n', mode: 'create_or_replace' } },
    'commit',
    (ws) => (inodeBefore = statSync(join(ws, 'w.txt')).ino),
  );
  try {
    assert.equal(r.retry.status, 'succeeded');
    assert.equal(readFileSync(join(r.dirs.workspace, 'w.txt'), 'utf8'), 'new\n');
    assert.deepEqual(r.states, ['completed']);
    assert.equal(r.again.replay, true);
    assert.equal(statSync(join(r.dirs.workspace, 'w.txt')).ino, inodeBefore, 'the file the crashed call wrote was not written again');
    const rt = await createRuntime({ workspace: r.dirs.workspace, stateDir: r.dirs.state, grant: GRANT });
    try {
      const undo = await rt.call(envelope('fs.undo', { receipt_id: r.retry.receipt_id }, { task_id: 'crash-task' }));
      assert.equal(undo.status, 'succeeded', JSON.stringify(undo.error));
      assert.equal(readFileSync(join(r.dirs.workspace, 'w.txt'), 'utf8'), 'old\n');
    } finally {
      await rt.close();
    }
  } finally {
    r.dirs.cleanup();
  }
});

test('fs.rename retried after a crash after its effect is not not_found: the record is reconciled (completed), not left sent', async () => {
  const r = await crashThenRetry(
    (ws) => writeFileSync(join(ws, 'from.txt'), 'x\n'),
    { tool: 'fs.rename', arguments: { from: 'from.txt', to: 'to.txt' } },
  );
  try {
    assert.equal(r.retry.error?.code ?? null, null, JSON.stringify(r.retry.error));
    assert.equal(r.retry.status, 'succeeded');
    assert.deepEqual(r.states, ['completed']);
    assert.ok(existsSync(join(r.dirs.workspace, 'to.txt')) && !existsSync(join(r.dirs.workspace, 'from.txt')));
  } finally {
    r.dirs.cleanup();
  }
});

test('fs.delete (a file and a tree) retried after a crash after its effect: completed, not not_found', async () => {
  const file = await crashThenRetry((ws) => writeFileSync(join(ws, 'gone.txt'), 'x\n'), { tool: 'fs.delete', arguments: { path: 'gone.txt' } });
  try {
    assert.equal(file.retry.status, 'succeeded', JSON.stringify(file.retry.error));
    assert.deepEqual(file.states, ['completed']);
  } finally {
    file.dirs.cleanup();
  }
  const tree = await crashThenRetry(
    (ws) => {
      mkdirSync(join(ws, 'd/sub'), { recursive: true });
      writeFileSync(join(ws, 'd/sub/f.txt'), 'x\n');
    },
    { tool: 'fs.delete', arguments: { path: 'd', recursive: true } },
  );
  try {
    assert.equal(tree.retry.status, 'succeeded', JSON.stringify(tree.retry.error));
    assert.deepEqual(tree.states, ['completed']);
    assert.deepEqual(readdirSync(tree.dirs.workspace), [], 'no tree and no trash left');
  } finally {
    tree.dirs.cleanup();
  }
});

test('a torn fs.rename (killed between link and unlink: one inode, two names) is finished by reconcile', async () => {
  const r = await crashThenRetry(
    (ws) => writeFileSync(join(ws, 'from.txt'), 'x\n'),
    { tool: 'fs.rename', arguments: { from: 'from.txt', to: 'to.txt' } },
    'torn-rename',
  );
  try {
    assert.equal(r.retry.status, 'succeeded', JSON.stringify(r.retry.error));
    assert.equal(r.retry.evidence['torn_rename_finished'], true);
    assert.ok(existsSync(join(r.dirs.workspace, 'to.txt')));
    assert.ok(!existsSync(join(r.dirs.workspace, 'from.txt')), 'the old name is gone');
    assert.equal(statSync(join(r.dirs.workspace, 'to.txt')).nlink, 1);
    assert.deepEqual(r.states, ['completed']);
  } finally {
    r.dirs.cleanup();
  }
});
