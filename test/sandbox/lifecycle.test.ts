import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../../src/sandbox/index.js';
import { BASE_ENV, describeMarked, newMarker, processesWithMarker, sleepersWithMarker, tempWorkspace, waitFor } from './fixtures.js';

function sandboxFor(dir: string, graceMs = 300): Sandbox {
  return new Sandbox({ workspace: dir, graceMs });
}

test('a setsid sleep started in the background is gone when the call returns', async () => {
  const ws = tempWorkspace();
  try {
    const marker = newMarker();
    const r = await sandboxFor(ws.dir).run({
      argv: ['sh', '-c', 'setsid sleep 1000 & sleep 1001 & echo started'],
      cwd: ws.dir,
      env: { ...BASE_ENV, TG_MARKER: marker },
      timeoutMs: 10_000,
    });
    assert.equal(r.reason, 'exited');
    assert.equal(r.exit_code, 0);
    assert.equal(r.stdout.preview, 'started\n');
    assert.deepEqual(processesWithMarker(marker), []);
  } finally {
    ws.remove();
  }
});

test('without bubblewrap, background processes left at exit are counted and killed through the cgroup', async () => {
  const ws = tempWorkspace();
  try {
    const marker = newMarker();
    const r = await new Sandbox({ workspace: ws.dir, bwrapPath: null, allowProcessIsolation: true }).run({
      argv: ['sh', '-c', 'setsid sleep 1000 >/dev/null 2>&1 & sleep 1001 >/dev/null 2>&1 & echo started'],
      cwd: ws.dir,
      env: { ...BASE_ENV, TG_MARKER: marker },
      timeoutMs: 10_000,
    });
    assert.equal(r.isolation.level, 'process');
    assert.equal(r.exit_code, 0);
    assert.equal(r.killed_after_exit, 2, 'both sleepers, the setsid one included');
    assert.deepEqual(processesWithMarker(marker), []);
  } finally {
    ws.remove();
  }
});

test('a tree of 100 processes that ignore SIGTERM is cancelled with 0 survivors', async () => {
  const ws = tempWorkspace();
  try {
    const marker = newMarker();
    const ac = new AbortController();
    const run = sandboxFor(ws.dir, 200).run({
      argv: ['sh', '-c', 'trap "" TERM; i=0; while [ $i -lt 100 ]; do sh -c "trap \\"\\" TERM; exec sleep 1000" & i=$((i+1)); done; wait'],
      cwd: ws.dir,
      env: { ...BASE_ENV, TG_MARKER: marker },
      timeoutMs: 30_000,
      limits: { processes: 400 },
      signal: ac.signal,
    });
    await waitFor(() => processesWithMarker(marker).length >= 101, 15_000, '100 sleepers');
    const t0 = performance.now();
    ac.abort();
    const r = await run;
    const took = performance.now() - t0;
    assert.deepEqual(processesWithMarker(marker), [], 'no process of the tree survives the call');
    assert.equal(r.reason, 'cancelled');
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(took >= 200, `the grace period is honoured (${took.toFixed(0)} ms)`);
  } finally {
    ws.remove();
  }
});

test('a double-forked daemon does not outlive the call', async () => {
  const ws = tempWorkspace();
  try {
    const marker = newMarker();
    const r = await sandboxFor(ws.dir).run({
      argv: ['sh', '-c', '(setsid sh -c "sleep 1000 </dev/null >/dev/null 2>&1 &" &); sleep 0.2; exit 0'],
      cwd: ws.dir,
      env: { ...BASE_ENV, TG_MARKER: marker },
      timeoutMs: 10_000,
    });
    assert.equal(r.reason, 'exited');
    assert.deepEqual(processesWithMarker(marker), []);
  } finally {
    ws.remove();
  }
});

test('a process that keeps stdout open after its parent exits neither hangs the call nor survives it', async () => {
  const ws = tempWorkspace();
  try {
    const marker = newMarker();
    const t0 = performance.now();
    const r = await sandboxFor(ws.dir).run({
      argv: ['sh', '-c', '(sleep 1000; echo late) & echo parent-done'],
      cwd: ws.dir,
      env: { ...BASE_ENV, TG_MARKER: marker },
      timeoutMs: 20_000,
    });
    assert.ok(performance.now() - t0 < 5_000, 'returns when the command exits, not when the holder does');
    assert.equal(r.reason, 'exited');
    assert.equal(r.stdout.preview, 'parent-done\n');
    assert.deepEqual(processesWithMarker(marker), []);
  } finally {
    ws.remove();
  }
});

test('the sandbox dies with the runtime process when that is killed with SIGKILL mid-call', async () => {
  const ws = tempWorkspace();
  try {
    const marker = newMarker();
    const runner = fileURLToPath(new URL('./run-in-child.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', runner, ws.dir, marker], { stdio: ['ignore', 'pipe', 'inherit'] });
    await waitFor(() => sleepersWithMarker(marker).length === 2, 15_000, 'the sandboxed sleepers');
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    try {
      await waitFor(() => processesWithMarker(marker).length === 0, 5_000, 'the sandbox to die with its runtime');
    } catch {
      assert.fail(`survivors: ${describeMarked(marker)}`);
    }
  } finally {
    ws.remove();
  }
});

test('a fork bomb is capped by the pids cgroup and ended with nothing left', async () => {
  const ws = tempWorkspace();
  try {
    const marker = newMarker();
    const r = await sandboxFor(ws.dir, 100).run({
      argv: ['bash', '-c', 'bomb() { bomb | bomb & }; bomb 2>/dev/null; sleep 30'],
      cwd: ws.dir,
      env: { ...BASE_ENV, TG_MARKER: marker },
      timeoutMs: 1_500,
      limits: { processes: 40 },
    });
    assert.equal(r.reason, 'timeout');
    assert.equal(r.limits.processes.enforced_by, 'cgroup');
    assert.ok(r.notes.some((n) => /process limit refused \d+ fork/.test(n)), `the cap refused forks: ${r.notes.join('; ')}`);
    assert.deepEqual(processesWithMarker(marker), []);
  } finally {
    ws.remove();
  }
});

test('cancel asks first: SIGTERM reaches the command, whose handler runs, long before the grace period ends', async () => {
  const ws = tempWorkspace();
  try {
    const ac = new AbortController();
    const run = new Sandbox({ workspace: ws.dir, graceMs: 5_000 }).run({
      argv: ['sh', '-c', 'trap "echo cleaned up; exit 7" TERM; echo ready; sleep 100 & wait'],
      cwd: ws.dir,
      env: { ...BASE_ENV },
      timeoutMs: 30_000,
      signal: ac.signal,
      onChunk: () => ac.abort(),
    });
    const t0 = performance.now();
    const r = await run;
    assert.equal(r.reason, 'cancelled');
    assert.equal(r.stdout.preview, 'ready\ncleaned up\n');
    assert.equal(r.exit_code, 7);
    assert.ok(performance.now() - t0 < 4_000, 'ended by its own handler, not by the SIGKILL after the grace');
  } finally {
    ws.remove();
  }
});
