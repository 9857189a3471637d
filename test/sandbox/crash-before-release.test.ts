// A runtime killed between the intent's durable write and the release of its command (the
// failpoint after_intent of shell.exec): the command must never start, and what waits of the
// sandbox goes with the next runtime's cgroup sweep. bubblewrap took the end-of-file of its block
// fd, which the dead runtime's end gave, for the go: the command then ran unsupervised (the
// PostgreSQL failpoint matrix saw a torn shell.exec). See src/sandbox/block-fd.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../../src/sandbox/index.js';
import { detectCgroups } from '../../src/sandbox/cgroups.js';
import { isGone, PID_NAMESPACE, processStat, sandboxOwnerMark, sweepOrphanedSandboxes } from '../../src/sandbox/process-table.js';
import { newMarker, processesWithMarker, tempWorkspace, waitFor } from './fixtures.js';

const probe = new Sandbox({ workspace: '/tmp', spare: false }).host;
const noBwrap = probe.bwrap === null ? 'no bubblewrap' : false;
const skip = probe.bwrap === null ? 'no bubblewrap' : probe.cgroups.bases.pids === undefined ? 'no writable pids cgroup' : false;

for (const mode of ['fresh', 'spare'] as const) {
  test(`a runtime killed before the release: the command never starts, and the next runtime's sweep ends the waiting sandbox (${mode} wrapper)`, { skip }, async () => {
    const ws = tempWorkspace();
    const marker = newMarker();
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./held-in-child.ts', import.meta.url)), ws.dir, marker, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await waitFor(() => out.includes('\n'), 60_000, 'the child to report its held init');
      const init = Number(out.trim());
      const start = processStat(init)?.start;
      assert.ok(start !== undefined, `a live init: ${out}`);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      // Were end-of-file the go, the command would now run: bubblewrap's setup is done, so it
      // would start within milliseconds. Two seconds, then it must not have. (The init may be
      // gone by then: any runtime that starts meanwhile, another test file's, sweeps the groups.)
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(existsSync(join(ws.dir, `ran-${marker}`)), false, 'the command did not start');
      detectCgroups(); // what the next runtime does first
      await waitFor(() => processesWithMarker(marker).length === 0, 5_000, 'the sweep to end the sandbox');
      assert.equal(existsSync(join(ws.dir, `ran-${marker}`)), false, 'the command never started');
    } finally {
      child.kill('SIGKILL');
      for (const pid of processesWithMarker(marker)) process.kill(pid, 'SIGKILL');
      ws.remove();
    }
  });
}

/** A child runtime holding one command before its release, and the pid and start of its init. */
async function heldInit(ws: string, marker: string, mode: 'no-cgroups', bwrapPath?: string): Promise<{ child: ReturnType<typeof spawn>; init: number; start: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./held-in-child.ts', import.meta.url)), ws, marker, mode, ...(bwrapPath ? [bwrapPath] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('\n'), 60_000, 'the child to report its held init');
  const init = Number(out.trim());
  const start = processStat(init)?.start;
  assert.ok(start !== undefined, `a live init: ${out}`);
  return { child, init, start };
}

// Without a writable pids cgroup (cgroup v2 without delegation), or before a fresh wrapper's init
// has joined its groups, no cgroup holds the init: only its owner mark leads to it. Before the
// mark, the init of a killed runtime stayed asleep (parent 1) until reboot.
test('a runtime killed before the release on a host without cgroups: its init is found by its owner mark and ended; a live runtime’s is kept', { skip: noBwrap }, async () => {
  const ws = tempWorkspace();
  const dead = newMarker();
  const live = newMarker();
  // The dead runtime's bubblewrap is installed under another name (`bwrapPath`): the sweep is told
  // the host's path, as detectHost does.
  const bin = mkdtempSync(join(tmpdir(), 'tg-bwrap-renamed-'));
  const renamed = join(bin, 'bubblewrap');
  symlinkSync(probe.bwrap as string, renamed);
  const held = await heldInit(ws.dir, dead, 'no-cgroups', renamed);
  const other = await heldInit(ws.dir, live, 'no-cgroups');
  try {
    const cmdline = readFileSync(`/proc/${held.init}/cmdline`, 'latin1').split('\0');
    assert.ok(cmdline.some((a) => /^TOOLGATE_SANDBOX_OF_\d+_\d+_\d+$/.test(a)), 'the init carries its owner mark');
    assert.notEqual(cmdline.find((a) => a.startsWith('TOOLGATE_SANDBOX_OF_')), sandboxOwnerMark(), 'the mark names the child runtime, not this process');
    const exited = new Promise((r) => held.child.once('exit', r));
    held.child.kill('SIGKILL');
    await exited;
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(existsSync(join(ws.dir, `ran-${dead}`)), false, 'the command did not start');
    // What the next runtime does first (detectHost). Another test file's runtime may sweep it
    // first, which is the same sweep; without the mark nothing ends it (it stays asleep, parent 1,
    // and this wait fails).
    assert.equal(readFileSync(`/proc/${held.init}/cmdline`, 'latin1').split('\0')[0], renamed);
    await waitFor(() => (sweepOrphanedSandboxes(renamed), isGone(held.init, held.start)), 5_000, 'the sweep to end the orphaned init');
    assert.equal(isGone(other.init, other.start), false, 'the live runtime’s init is kept');
    assert.equal(existsSync(join(ws.dir, `ran-${dead}`)), false, 'the command never started');
  } finally {
    for (const c of [held.child, other.child]) c.kill('SIGKILL');
    for (const m of [dead, live]) for (const pid of processesWithMarker(m)) process.kill(pid, 'SIGKILL');
    ws.remove();
    rmSync(bin, { recursive: true, force: true });
  }
});

test('the orphan sweep ends only a bwrap whose marked owner is surely gone in this pid namespace', async () => {
  // Stand-ins: a shell whose argv[0] is `bwrap` and whose arguments carry a mark, as a
  // sandbox's init does; it waits (no exec of its last command: `; :`).
  const exited = spawn('true');
  await new Promise((r) => exited.once('exit', r));
  const dead = exited.pid as number;
  const standIn = (argv0: string, mark: string): ReturnType<typeof spawn> =>
    spawn('bash', ['-c', `exec -a ${argv0} sh -c 'sleep 60; :' x --unsetenv ${mark}`], { stdio: 'ignore' });
  const cases = {
    gone: standIn('bwrap', `TOOLGATE_SANDBOX_OF_${dead}_12345_${PID_NAMESPACE}`),
    unknownStart: standIn('bwrap', `TOOLGATE_SANDBOX_OF_${dead}_0_${PID_NAMESPACE}`),
    otherNamespace: standIn('bwrap', `TOOLGATE_SANDBOX_OF_${dead}_12345_1${PID_NAMESPACE}`),
    liveOwner: standIn('bwrap', sandboxOwnerMark()),
    notBwrap: standIn('bwrap2', `TOOLGATE_SANDBOX_OF_${dead}_12345_${PID_NAMESPACE}`),
  };
  try {
    const pids = Object.fromEntries(Object.entries(cases).map(([k, c]) => [k, c.pid as number]));
    // Another test file's runtime may open meanwhile and sweep too: the orphan may be gone
    // already (ended by that sweep, by the same rule), so its cmdline may not be there to read.
    const cmdline = (pid: number): string => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      } catch {
        return '';
      }
    };
    const started = (pid: number): boolean => cmdline(pid).includes('--unsetenv');
    await waitFor(() => Object.entries(pids).every(([k, p]) => started(p) || (k === 'gone' && cases.gone.exitCode !== null) || (k === 'gone' && cases.gone.signalCode !== null)), 5_000, 'the stand-ins to start');
    const killed = sweepOrphanedSandboxes();
    // This sweep ends the orphan, unless another one did first; it ends no stand-in the guards keep.
    assert.deepEqual(killed.filter((p) => Object.values(pids).includes(p) && p !== pids['gone']), []);
    if (!killed.includes(pids['gone'] as number)) assert.ok(cases.gone.signalCode === 'SIGKILL' || !started(pids['gone'] as number), 'the orphan was ended by another sweep');
    // Alive: any state but a zombie's (R or S, as the machine's load has it); ours until reaped.
    const alive = (pid: number): boolean => {
      const st = processStat(pid);
      return st !== null && st.state !== 'Z' && st.state !== 'X';
    };
    await waitFor(() => !alive(pids['gone'] as number), 5_000, 'the orphan to end');
    // A SIGKILL sent by the same sweep has landed well within this.
    await new Promise((r) => setTimeout(r, 200));
    for (const k of ['unknownStart', 'otherNamespace', 'liveOwner', 'notBwrap']) assert.ok(alive(pids[k] as number), `${k} is kept`);
  } finally {
    for (const c of Object.values(cases)) c.kill('SIGKILL');
  }
});
