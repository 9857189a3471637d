// Issue 10 items 5 and 6: one call must never block the server. A FIFO is refused without
// waiting for a writer; a huge sparse file is read off the main thread and stops at the deadline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, fstatSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, testRuntime } from '../../support/fixtures.js';
import { withHarness } from '../fs-write/harness.js';
import { FS_READ_MAX_FILE_BYTES } from '../../../src/tools/fs-read/tool.js';

/**
 * Readers stuck in open(2) on the FIFO at `path`, released now. Called only once no call is
 * running: a non-blocking open for writing succeeds only when some reader has the FIFO open,
 * and with every call returned the only such reader is one stuck in open(2) (a tool's own brief
 * non-blocking open would also count, which is why the count is taken after the calls, not
 * while they run). Answers how many of `paths` had such readers, and releases them.
 */
function releaseStuckReaders(paths: readonly string[]): number {
  // One writer's open wakes every reader blocked in open(2) on that FIFO: one try per path.
  let withReaders = 0;
  for (const path of paths) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
      if (fstatSync(fd).isFIFO()) withReaders++;
      closeSync(fd);
    } catch {
      // ENXIO: no reader; ENOENT: not there
    }
  }
  return withReaders;
}

/** Short enough that a call stuck in open(2) ends the test soon; long enough for a loaded machine. */
const CALL_DEADLINE_MS = 15_000;
const deadline = (): string => new Date(Date.now() + CALL_DEADLINE_MS).toISOString();

void test('the stuck-reader count sees a process blocked in open(2) on a FIFO (the check below can fail)', async () => {
  const { workspace, done } = await testRuntime();
  const fifo = join(workspace, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = spawn('cat', [fifo], { stdio: 'ignore' });
  try {
    let released = 0;
    // Bounded: cat reaches open(2) within milliseconds; retry until it is there.
    for (let i = 0; i < 200 && released === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      released = releaseStuckReaders([fifo]);
    }
    assert.equal(released, 1);
  } finally {
    reader.kill('SIGKILL');
    await once(reader, 'exit');
    await done();
  }
});

void test('fs.read of a FIFO is refused at once as a special file (no writer needed)', async () => {
  const { rt, workspace, done } = await testRuntime();
  const fifo = join(workspace, 'fifo');
  execFileSync('mkfifo', [fifo]);
  try {
    const r = await rt.call(envelope('fs.read', { path: 'fifo' }, { deadline: deadline() }));
    assert.equal(releaseStuckReaders([fifo]), 0, 'the read waited for a writer');
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'invalid_resource', JSON.stringify(r.error));
    assert.equal((r.error?.data as { kind: string }).kind, 'fifo');
    assert.equal((r.error?.data as { reason: string }).reason, 'special_file');
  } finally {
    releaseStuckReaders([fifo]);
    await done();
  }
});

// Swaps `f` between a regular file and a FIFO as fast as it can.
const SWAPPER = `
const fs = require('node:fs');
const [root] = process.argv.slice(1);
const p = (n) => root + '/' + n;
const pause = new Int32Array(new SharedArrayBuffer(4));
process.send('ready');
for (;;) {
  try { fs.renameSync(p('f'), p('f.reg')); fs.renameSync(p('f.fifo'), p('f')); } catch {}
  Atomics.wait(pause, 0, 0, Math.random() * 0.5);
  try { fs.renameSync(p('f'), p('f.fifo')); fs.renameSync(p('f.reg'), p('f')); } catch {}
  Atomics.wait(pause, 0, 0, Math.random() * 0.5);
}`;

const CALLS = 300;

void test(`a file swapped for a FIFO during ${CALLS} reads, writes and patches never blocks a call in open(2)`, (t) =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'f'), 'a\n');
    execFileSync('mkfifo', [join(h.root, 'f.fifo')]);
    const child = spawn(process.execPath, ['-e', SWAPPER, h.root], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    const outcomes = new Map<string, number>();
    try {
      await once(child, 'message');
      for (let i = 0; i < CALLS; i++) {
        const r =
          i % 3 === 0
            ? await h.call('fs.read', { path: 'f' }, { deadline: deadline() })
            : i % 3 === 1
              ? await h.call('fs.write', { path: 'f', content: 'a\n', mode: 'create_or_replace' }, { deadline: deadline() })
              : await h.call('fs.patch', { files: [{ path: 'f', edits: [{ old: 'a', new: 'b' }] }] }, { deadline: deadline() });
        const key = `${r.tool}:${r.status === 'succeeded' ? 'succeeded' : `${r.error?.code}${(r.error?.data as { reason?: string } | undefined)?.reason ? `/${(r.error?.data as { reason: string }).reason}` : ''}`}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
        if (r.status === 'expired' || r.status === 'timed_out') break; // stuck in open(2): counted below
      }
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    // Every call has returned: a reader still in open(2) is a call's thread that blocked.
    const released = releaseStuckReaders([join(h.root, 'f'), join(h.root, 'f.fifo')]);
    t.diagnostic(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}; readers stuck in open(2): ${released}`);
    assert.equal(released, 0, 'calls blocked in open(2) on the FIFO');
    for (const key of outcomes.keys()) assert.doesNotMatch(key, /internal_error|execution_failed/, key);
  }));

void test('a 16 GiB sparse file is past what fs.read pages: limit_exceeded at once, with the size, nothing read', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    execFileSync('truncate', ['-s', '16G', join(workspace, 'huge')]);
    const r = await rt.call(envelope('fs.read', { path: 'huge' }));
    assert.equal(r.error?.code, 'limit_exceeded', JSON.stringify(r.error));
    assert.deepEqual(r.error?.data, { limit: FS_READ_MAX_FILE_BYTES, size: 16 * 1024 ** 3, path: 'huge' });
  } finally {
    await done();
  }
});

void test('a sparse file just under the limit: the event loop keeps running, another call completes, and the read ends by its deadline', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    execFileSync('truncate', ['-s', String(FS_READ_MAX_FILE_BYTES), join(workspace, 'huge')]);
    writeFileSync(join(workspace, 'small.txt'), 'small\n');
    let ticks = 0;
    let longestGap = 0;
    let lastTick = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      longestGap = Math.max(longestGap, now - lastTick);
      lastTick = now;
      ticks++;
    }, 20);
    const deadlineMs = 3_000;
    const started = Date.now();
    try {
      const big = rt.call(envelope('fs.read', { path: 'huge' }, { deadline: new Date(started + deadlineMs).toISOString() }));
      await new Promise((r) => setTimeout(r, 200));
      const small = await rt.call(envelope('fs.read', { path: 'small.txt' }));
      const smallAt = Date.now() - started;
      assert.equal(small.status, 'succeeded', JSON.stringify(small.error));
      const r = await big;
      const took = Date.now() - started;
      // 4 GiB of zeros: a fast disk cache may scan it before the deadline; this machine takes
      // far longer. Either way the loop kept turning and nothing outlived the deadline by much.
      assert.ok(['succeeded', 'timed_out', 'expired', 'ambiguous', 'cancelled'].includes(r.status), `${r.status} ${JSON.stringify(r.error)}`);
      assert.ok(took < deadlineMs + 20_000, `the read ended ${took} ms after it started (deadline ${deadlineMs} ms)`);
      if (r.status !== 'succeeded') assert.ok(smallAt < took, 'the small read completed while the big one was running');
      assert.ok(longestGap < 5_000, `the event loop stalled for ${longestGap} ms`);
      assert.ok(ticks > 10);
    } finally {
      clearInterval(timer);
    }
  } finally {
    await done();
  }
});
