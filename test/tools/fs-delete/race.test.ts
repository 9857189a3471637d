import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
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
  Atomics.wait(pause, 0, 0, Math.random() * 0.3);
}`;

const ITERATIONS = 300;

void test(`a subdirectory swapped for a link to outside during ${ITERATIONS} recursive deletes: nothing outside is removed`, (t) =>
  withHarness(async (h) => {
    for (let i = 0; i < 5; i++) writeFileSync(join(h.outside, `keep${i}`), `${i}`);
    symlinkSync(h.outside, join(h.root, 'sub.evil'));
    const child = spawn(process.execPath, ['-e', SWAPPER, h.root], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const outcomes = new Map<string, number>();
    try {
      await once(child, 'message');
      for (let i = 0; i < ITERATIONS; i++) {
        mkdirSync(join(h.root, 'tree/sub'), { recursive: true });
        for (let k = 0; k < 3; k++) writeFileSync(join(h.root, `tree/f${k}`), `${k}`);
        const r = await h.call('fs.delete', { path: 'tree', recursive: true });
        const key = r.status === 'succeeded' ? 'succeeded' : `${r.error?.code}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    assert.deepEqual(readdirSync(h.outside).sort(), ['keep0', 'keep1', 'keep2', 'keep3', 'keep4']);
    assert.ok((outcomes.get('succeeded') ?? 0) > 0);
  }));
