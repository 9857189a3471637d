import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withHarness } from '../fs-write/harness.js';

// Swaps `tree/sub` (a real directory) with a link to the outside folder, as fast as it can.
const SWAPPER = `
const fs = require('node:fs');
const [root] = process.argv.slice(1);
const p = (n) => root + '/' + n;
const pause = new Int32Array(new SharedArrayBuffer(4));
process.send('ready');
for (;;) {
  try { fs.renameSync(p('tree/sub'), p('sub.real')); fs.renameSync(p('sub.evil'), p('tree/sub')); } catch {}
  Atomics.wait(pause, 0, 0, Math.random() * 0.3);
  try { fs.renameSync(p('tree/sub'), p('sub.evil')); fs.renameSync(p('sub.real'), p('tree/sub')); } catch {}
  Atomics.wait(pause, 0, 0, Math.random() < 0.2 ? 20 : Math.random() * 0.3);
}`;

const ITERATIONS = 300;

/** Stops the swapper and waits until the kernel reports it stopped (state T), so no rename is in flight. */
async function pauseSwapper(pid: number): Promise<void> {
  process.kill(pid, 'SIGSTOP');
  for (let i = 0; i < 10_000; i++) {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    if (state === 'T' || state === 't') return;
    await new Promise((r) => setTimeout(r, 1));
  }
  throw new Error('the swapper did not stop');
}

/**
 * The fixture for one delete, built while the swapper is stopped (its renames would race the
 * test's own mkdir: ENOENT on a slow machine): the tree, and the link the swapper swaps in.
 * The swapper tolerates any state it resumes in (every rename is tried and may fail).
 */
function resetFixture(root: string, outside: string): void {
  for (const n of ['tree', 'sub.real', 'sub.evil']) rmSync(join(root, n), { recursive: true, force: true });
  mkdirSync(join(root, 'tree/sub'), { recursive: true });
  for (let k = 0; k < 3; k++) writeFileSync(join(root, `tree/f${k}`), `${k}`);
  symlinkSync(outside, join(root, 'sub.evil'));
}

void test(`a subdirectory swapped for a link to outside during ${ITERATIONS} recursive deletes: nothing outside is removed`, (t) =>
  withHarness(async (h) => {
    for (let i = 0; i < 5; i++) writeFileSync(join(h.outside, `keep${i}`), `${i}`);
    resetFixture(h.root, h.outside);
    const child = spawn(process.execPath, ['-e', SWAPPER, h.root], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const outcomes = new Map<string, number>();
    try {
      await once(child, 'message');
      for (let i = 0; i < ITERATIONS; i++) {
        await pauseSwapper(child.pid as number);
        resetFixture(h.root, h.outside);
        process.kill(child.pid as number, 'SIGCONT');
        const r = await h.call('fs.delete', { path: 'tree', recursive: true });
        const key = r.status === 'succeeded' ? 'succeeded' : `${r.error?.code}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
    } finally {
      child.kill('SIGKILL'); // also ends a stopped process
      await once(child, 'exit');
    }
    t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    assert.deepEqual(readdirSync(h.outside).sort(), ['keep0', 'keep1', 'keep2', 'keep3', 'keep4']);
    // Each call either deleted the tree or refused because it changed; how many of each depends on timing.
    for (const key of outcomes.keys()) assert.ok(['succeeded', 'precondition_failed', 'not_found'].includes(key), key);
    // Control, without the adversary: the same fixture is deleted, so the refusals above were the race.
    resetFixture(h.root, h.outside);
    const control = await h.call('fs.delete', { path: 'tree', recursive: true });
    assert.equal(control.status, 'succeeded', JSON.stringify(control.error));
  }));
