// A stop that comes after bubblewrap has cloned the sandbox's init but before the runtime has read
// bubblewrap's report of it (the info fd). That init sets no parent-death signal until it is
// released from its block fd, and a fresh wrapper's init joins the cgroups only once reported, so
// killing the wrapper alone left it waiting, holding the run's output open: the call never
// returned and the process stayed (CI: "aborting runtime.call ... no process of the command is
// left" saw one, then the run hung). The window is a few milliseconds wide; these tests hold it
// open by blocking the event loop (so the report cannot be read) from the clone to the abort.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox } from '../../src/sandbox/index.js';
import { childrenOf, processStat } from '../../src/sandbox/process-table.js';
import { killWithChildren } from '../../src/sandbox/teardown.js';
import { BASE_ENV, newMarker, processesWithMarker, tempWorkspace, waitFor } from './fixtures.js';

const hasBwrap = new Sandbox({ workspace: '/tmp', spare: false }).host.bwrap !== null;

/** Spins (the event loop blocked) until `pid` has a child; its pid. */
function spinUntilChild(pid: number, ms: number): number {
  const until = Date.now() + ms;
  for (;;) {
    const c = childrenOf(pid);
    if (c.length > 0) return c[0] as number;
    if (Date.now() > until) throw new Error(`process ${pid} forked nothing within ${ms} ms`);
  }
}

/** A bubblewrap with a pid namespace that waits on its block fd (ours, never written). */
function blockedBwrap(bwrap: string, marker: string) {
  return spawn(bwrap, ['--unshare-pid', '--die-with-parent', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--info-fd', '3', '--block-fd', '4', '--', 'sh', '-c', `echo ${marker}`], {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
  });
}

test('killing bubblewrap alone leaves its unreleased init behind; killWithChildren takes both, and the output closes', { skip: hasBwrap ? false : 'no bubblewrap' }, async () => {
  const bwrap = new Sandbox({ workspace: '/tmp', spare: false }).host.bwrap as string;
  // The hazard itself, so that the test below cannot pass for want of one.
  const marker = newMarker();
  const lone = blockedBwrap(bwrap, marker);
  const orphan = spinUntilChild(lone.pid as number, 10_000);
  const loneExit = new Promise((r) => lone.once('exit', r));
  process.kill(lone.pid as number, 'SIGKILL');
  await loneExit;
  await new Promise((r) => setTimeout(r, 200));
  try {
    const st = processStat(orphan);
    assert.ok(st !== null && st.state !== 'Z', 'the init outlives bubblewrap killed alone');
  } finally {
    process.kill(orphan, 'SIGKILL');
    for (const s of lone.stdio) s?.destroy();
  }

  const w = blockedBwrap(bwrap, newMarker());
  const init = spinUntilChild(w.pid as number, 10_000);
  const start = processStat(init)?.start as string;
  const exited = new Promise((r) => w.once('exit', r));
  const outClosed = new Promise((r) => w.stdout?.once('close', r));
  w.stdout?.resume();
  await killWithChildren(w.pid as number, () => w.exitCode === null && w.signalCode === null);
  await exited;
  await outClosed; // no process holds the output any more
  await waitFor(() => processStat(init)?.start !== start || processStat(init)?.state === 'Z', 5_000, 'the init to be gone');
  for (const s of w.stdio) s?.destroy();
});

// A fresh wrapper only: a spare's bubblewrap reads its options from a socket to EOF, which needs
// the event loop this test blocks; and a spare's init is born in the run's cgroups, which
// teardown empties whether the init was reported or not (spare.test.ts cancels through it).
const ROUNDS = 8;

test("a cancel between bubblewrap's clone and its report returns at once and leaves no process (fresh wrapper)", { skip: hasBwrap ? false : 'no bubblewrap' }, async () => {
  const ws = tempWorkspace();
  const sb = new Sandbox({ workspace: ws.dir, spare: false, graceMs: 10_000 });
  const markers: string[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const marker = newMarker();
      markers.push(marker);
      const ac = new AbortController();
      const before = new Set(childrenOf(process.pid));
      const started = performance.now();
      const run = sb.run({
        argv: ['sh', '-c', `echo ${marker} > ran-${i}; sleep 1000`],
        cwd: ws.dir,
        env: { ...BASE_ENV, TG_MARKER: marker },
        timeoutMs: 30_000,
        signal: ac.signal,
        // Runs with the wrapper started and blocks the event loop until bubblewrap has cloned its
        // init, so that the report cannot have been read; bubblewrap is then stopped, as a loaded
        // machine may deschedule it, often before it has written the report; then the cancel.
        onSpawn: () => {
          const wrapper = childrenOf(process.pid).find((p) => !before.has(p));
          assert.ok(wrapper !== undefined, 'the wrapper is a child of this process');
          spinUntilChild(wrapper, 10_000);
          process.kill(wrapper, 'SIGSTOP');
          ac.abort();
        },
      });
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([run, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`round ${i}: the cancelled run did not return within 10 s`)), 10_000)))]).finally(() => clearTimeout(timer));
      const took = performance.now() - started;
      assert.equal(r.reason, 'cancelled');
      assert.ok(took < 5_000, `returned in ${Math.round(took)} ms, not after the grace of 10 s`);
      assert.deepEqual(processesWithMarker(marker), [], 'nothing of the run is left');
    }
    assert.deepEqual(
      Array.from({ length: ROUNDS }, (_, i) => i).filter((i) => existsSync(join(ws.dir, `ran-${i}`))),
      [],
      'the command never started',
    );
  } finally {
    // On failure, what was left would hold this file's process open: it goes.
    for (const m of markers) for (const pid of processesWithMarker(m)) process.kill(pid, 'SIGKILL');
    sb.close();
    ws.remove();
  }
});

test('childrenOf: the children file and the scan of every parent agree', async () => {
  const kids = [0, 1, 2].map(() => spawn('sleep', ['30'], { stdio: 'ignore' }));
  try {
    const pids = kids.map((k) => k.pid as number).sort((a, b) => a - b);
    const listed = childrenOf(process.pid).filter((p) => pids.includes(p)).sort((a, b) => a - b);
    const scanned = childrenOf(process.pid, true).filter((p) => pids.includes(p)).sort((a, b) => a - b);
    assert.deepEqual(listed, pids);
    assert.deepEqual(scanned, pids);
    assert.deepEqual(childrenOf(pids[0] as number), []);
    assert.deepEqual(childrenOf(pids[0] as number, true), []);
  } finally {
    for (const k of kids) k.kill('SIGKILL');
  }
});
