import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { waitFor } from '../../support/processes.js';
import { pidsRunning, resultOf, sessionRig, type SessionRig } from './rig.js';

/** Plants a background job and a double-forked daemon (setsid, reparented) in the task's session. */
async function plant(rig: SessionRig, n: number, task = 'task-session'): Promise<number[]> {
  const r = await rig.call({ command: `sleep ${n} & ( setsid sleep ${n + 1} & ) ; echo planted` }, task);
  assert.equal(r.status, 'succeeded');
  // The daemon's fork is asynchronous: wait until both run, then ask the session again.
  assert.ok(await waitFor(() => pidsRunning('sleep', String(n)).length + pidsRunning('sleep', String(n + 1)).length === 2, 10_000));
  assert.equal(resultOf(await rig.call({ command: 'true' }, task)).background_processes, 2);
  const entry = rig.tool.sessions.get(task, 'default');
  assert.ok(entry);
  // The session's cgroup holds the sandbox's init, the shell and both sleeps.
  assert.equal(entry.session.members().length, 4);
  assert.equal(pidsRunning('sleep', String(n)).length, 1);
  assert.equal(pidsRunning('sleep', String(n + 1)).length, 1);
  return entry.session.members();
}

async function assertNoneLeft(n: number, members: number[]): Promise<void> {
  const gone = await waitFor(() => pidsRunning('sleep', String(n)).length + pidsRunning('sleep', String(n + 1)).length === 0, 10_000);
  assert.ok(gone, 'no planted process is left in the process table');
  // A killed process may stay a zombie until its reaper gets to it: gone means absent or a zombie.
  const running = (pid: number): boolean => {
    try {
      return !/^\d+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };
  assert.ok(await waitFor(() => members.every((pid) => !running(pid)), 10_000), `every pid of the session's cgroup is gone: ${members.filter(running).join(' ')}`);
}

// This process's own: other test files run at the same time and make theirs (toolgate-session-<pid>-…).
const fifoDirs = (): string[] => readdirSync(tmpdir()).filter((n) => n.startsWith(`toolgate-session-${process.pid}-`));

describe('shell.session lifecycle: the session dies with the task and leaves 0 processes', () => {
  it('on action close', async () => {
    const rig = await sessionRig();
    try {
      const members = await plant(rig, 7711);
      const r = await rig.call({ action: 'close' });
      assert.equal(resultOf(r).session_ended?.killed_processes, 2);
      await assertNoneLeft(7711, members);
    } finally {
      await rig.done();
    }
  });

  it('on Runtime.endTask (an MCP session ended) and Runtime.cancelTask', async () => {
    const rig = await sessionRig();
    try {
      const members = await plant(rig, 7713, 'ending');
      await rig.rt.endTask('ending');
      await assertNoneLeft(7713, members);
      assert.equal(rig.tool.sessions.get('ending', 'default'), undefined);
      const more = await plant(rig, 7715, 'cancelled');
      rig.rt.cancelTask('cancelled');
      await assertNoneLeft(7715, more);
    } finally {
      await rig.done();
    }
  });

  it('on runtime.close(), also under a command that still runs', async () => {
    const rig = await sessionRig();
    const members = await plant(rig, 7717);
    const running = rig.call({ command: 'sleep 7719' });
    await waitFor(() => pidsRunning('sleep', '7719').length === 1, 10_000);
    await rig.done();
    const receipt = await running;
    assert.equal(resultOf(receipt).session_state, 'ended');
    await assertNoneLeft(7717, members);
    assert.equal(pidsRunning('sleep', '7719').length, 0);
  });

  it('after the idle timeout', async () => {
    const rig = await sessionRig({ idleMs: 300 });
    try {
      const members = await plant(rig, 7721);
      await assertNoneLeft(7721, members);
      assert.equal(rig.tool.sessions.get('task-session', 'default'), undefined);
      assert.equal((await rig.call({ command: 'echo again' })).status, 'succeeded');
    } finally {
      await rig.done();
    }
  });

  it('removes its stdin FIFO directories', async () => {
    const before = new Set(fifoDirs());
    const rig = await sessionRig();
    await rig.call({ command: 'true' });
    await rig.call({ command: 'true', session: 'two' });
    await rig.done();
    assert.deepEqual(fifoDirs().filter((d) => !before.has(d)), []);
  });
});
