import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMarked, newMarker, processesWithMarker, sleepersWithMarker, waitFor } from '../../sandbox/fixtures.js';

test('a runtime killed with SIGKILL during shell.exec takes the whole sandbox with it', async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-crash-')));
  const workspace = join(base, 'ws');
  mkdirSync(workspace);
  try {
    const marker = newMarker();
    const runner = fileURLToPath(new URL('./runtime-in-child.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', runner, workspace, join(base, 'state'), marker], { stdio: ['ignore', 'inherit', 'inherit'] });
    await waitFor(() => sleepersWithMarker(marker).length === 2, 20_000, 'the sandboxed sleepers');
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    try {
      await waitFor(() => processesWithMarker(marker).length === 0, 5_000, 'the sandbox to die with its runtime');
    } catch {
      assert.fail(`survivors: ${describeMarked(marker)}`);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
