import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { withHarness } from './harness.js';

// Swaps `sub` (a real directory) with `sub.evil` (a link to the outside folder) as fast as it can.
const SWAPPER = `
const fs = require('node:fs');
const [root] = process.argv.slice(1);
const p = (n) => root + '/' + n;
const pause = new Int32Array(new SharedArrayBuffer(4));
process.send('ready');
for (;;) {
  try { fs.renameSync(p('sub'), p('sub.real')); fs.renameSync(p('sub.evil'), p('sub')); } catch {}
  Atomics.wait(pause, 0, 0, Math.random() * 0.3); // each state lasts a random while (0-300 us)
  try { fs.renameSync(p('sub'), p('sub.evil')); fs.renameSync(p('sub.real'), p('sub')); } catch {}
  Atomics.wait(pause, 0, 0, Math.random() * 0.3);
}`;

const ITERATIONS = 2000;

void test(`a parent directory swapped for a link to outside during ${ITERATIONS} writes: 0 writes land outside the root`, (t) =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, 'sub'));
    symlinkSync(h.outside, join(h.root, 'sub.evil'));
    const child = spawn(process.execPath, ['-e', SWAPPER, h.root], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const outcomes = new Map<string, number>();
    try {
      await once(child, 'message');
      for (let i = 0; i < ITERATIONS; i++) {
        const r = await h.call('fs.write', { path: 'sub/f.txt', content: `write ${i}\n`, mode: 'create_or_replace' });
        const key = r.status === 'succeeded' ? 'succeeded' : `${r.error?.code}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`);
    assert.deepEqual(readdirSync(h.outside), [], 'nothing was written outside the root');
    const succeeded = outcomes.get('succeeded') ?? 0;
    assert.ok(succeeded > 0, 'some writes went through between swaps');
    assert.ok(succeeded < ITERATIONS, 'the swap was hit: some writes were refused');
    for (const code of outcomes.keys()) assert.ok(['succeeded', 'path_escape', 'precondition_failed', 'not_found', 'invalid_resource'].includes(code), code);
    // Whatever landed is inside: no temporary files anywhere.
    for (const dir of ['sub', 'sub.real']) {
      try {
        for (const name of readdirSync(join(h.root, dir))) assert.equal(name, 'f.txt');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
      }
    }
  }));
