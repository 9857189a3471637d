// A directory on the path is swapped for a symlink to the outside, over and over, by another
// process, while the runtime reads through it. No read may ever return the outside file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime } from '../../src/runtime/index.js';

const SECRET = 'OUTSIDE-SECRET-race';
const ITERATIONS = 2_000;

test(`a directory swapped for a symlink during the call: ${ITERATIONS} reads, 0 escapes`, async () => {
  const d = tempDirs();
  mkdirSync(join(d.base, 'outside'));
  writeFileSync(join(d.base, 'outside', 'file.txt'), SECRET);
  mkdirSync(join(d.workspace, 'dir'));
  writeFileSync(join(d.workspace, 'dir', 'file.txt'), 'inside');
  symlinkSync(join(d.base, 'outside'), join(d.workspace, 'parked-link'));
  // The swapper: dir <-> parked-link, by renames, as fast as it can, counting swaps.
  const swapper = spawn(process.execPath, ['-e', `
    const fs = require('fs'); const ws = ${JSON.stringify(d.workspace)};
    let n = 0;
    for (;;) {
      fs.renameSync(ws + '/dir', ws + '/parked-dir'); fs.renameSync(ws + '/parked-link', ws + '/dir');
      fs.renameSync(ws + '/dir', ws + '/parked-link'); fs.renameSync(ws + '/parked-dir', ws + '/dir');
      n++;
      if (n % 256 === 0) process.stdout.write(n + '\\n');
    }
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  let swaps = '0';
  swapper.stdout.on('data', (b: Buffer) => (swaps = b.toString().trim().split('\n').pop() ?? swaps));
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state });
  const outcomes = new Map<string, number>();
  let escapes = 0;
  try {
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < ITERATIONS; i++) {
      const r = await rt.call(envelope('fs.read', { path: 'dir/file.txt' }));
      const content = (r.result as { content?: string } | null)?.content;
      if (content === SECRET) escapes++;
      const key = r.status === 'succeeded' ? `succeeded:${content}` : `${r.status}:${r.error?.code}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
  } finally {
    swapper.kill('SIGKILL');
    await new Promise((r) => swapper.once('exit', r));
    await rt.close();
    d.cleanup();
    console.log(`swap race: ${ITERATIONS} reads, ${swaps} swaps, outcomes ${JSON.stringify(Object.fromEntries(outcomes))}, escapes ${escapes}`);
  }
  assert.equal(escapes, 0);
  assert.ok((outcomes.get('succeeded:inside') ?? 0) > 0, 'some reads ran while the real directory was there');
  assert.ok([...outcomes.keys()].some((k) => !k.startsWith('succeeded')), 'some reads met the swap: the race really happened');
});
