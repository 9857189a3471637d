import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultOf, sessionRig, type SessionRig } from './rig.js';

/** bwrap processes descending from this one (the session's sandbox, and any status sandbox held). */
function bwrapDescendants(): number[] {
  const parent = new Map<number, number>();
  const bwrap = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'bwrap') bwrap.add(Number(name));
    } catch {
      // gone
    }
  }
  const mine = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...bwrap].filter(mine);
}

describe('shell.session: one persistent shell per task, each command its own receipt', () => {
  let rig: SessionRig;
  before(async () => {
    rig = await sessionRig();
  });
  after(async () => {
    await rig.done();
  });

  it('keeps cd, export and shell functions between runs, and reports cwd and env changes', async () => {
    const first = await rig.call({ command: 'cd sub && export FOO=bar && greet() { echo "hi $1"; }' });
    assert.equal(first.status, 'succeeded');
    const r1 = resultOf(first);
    assert.equal(r1.cwd, 'sub');
    assert.deepEqual(r1.env_changes.added, ['FOO']);
    assert.equal(r1.env_values['FOO'], 'bar');
    const second = await rig.call({ command: 'pwd; echo $FOO; greet you' });
    const r2 = resultOf(second);
    assert.equal(second.status, 'succeeded');
    assert.equal(r2.stdout.preview, `${join(rig.workspace, 'sub')}\nbar\nhi you\n`);
    assert.deepEqual(r2.env_changes, { added: [], changed: [], removed: [] });
    const third = await rig.call({ command: 'unset FOO; export FOO2=x; cd ..' });
    assert.deepEqual(resultOf(third).env_changes, { added: ['FOO2'], changed: [], removed: ['FOO'] });
    assert.equal(resultOf(third).cwd, '.');
    assert.notEqual(first.receipt_id, second.receipt_id);
  });

  it('a failing command is a failed receipt with its exit code and stderr; the session goes on', async () => {
    const r = await rig.call({ command: 'echo out; ls does-not-exist; exit_status_kept=1' });
    assert.equal(r.status, 'succeeded'); // the last command of the script decides, as in bash
    const failed = await rig.call({ command: 'echo before; ls does-not-exist' });
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'execution_failed');
    assert.equal(resultOf(failed).exit_code, 2);
    assert.match(resultOf(failed).stderr.preview, /does-not-exist/);
    assert.equal(resultOf(failed).session_state, 'open');
    const next = await rig.call({ command: 'echo $exit_status_kept' });
    assert.equal(resultOf(next).stdout.preview, '1\n');
  });

  it('reports the workspace paths a command changed (git status around it) and advances the revision', async () => {
    const before = await rig.call({ command: 'true' });
    const r = await rig.call({ command: 'echo two >> tracked.txt; echo new > sub/made.txt' });
    assert.deepEqual(resultOf(r).changed_paths?.sort(), ['sub/made.txt', 'tracked.txt']);
    assert.notEqual(resultOf(r).revision, resultOf(before).revision);
  });

  it('reads the status after a command once it has ended, whether it ends within the call that ran it or in a later one, and leaves no sandbox behind', async () => {
    // The status after's sandbox is set up while the command runs (issue 14): a change at the
    // command's last moment is seen. A command that outlives its call has its held sandbox
    // stopped as the call returns, and its status read when a later call returns its end.
    const late = await rig.call({ command: 'sleep 0.5; echo x > late.txt' });
    assert.deepEqual(resultOf(late).changed_paths, ['late.txt']);
    const sandboxes = bwrapDescendants().length;
    const started = await rig.call({ command: 'sleep 1; echo y > later.txt', yield_ms: 100 });
    assert.equal(resultOf(started).running, true);
    assert.equal(bwrapDescendants().length, sandboxes, 'no held status sandbox outlives the call');
    const ended = await rig.call({ action: 'read', yield_ms: 10_000 });
    assert.deepEqual(resultOf(ended).changed_paths, ['later.txt']);
  });

  it('a cd outside the workspace is reported as such', async () => {
    const r = await rig.call({ command: 'cd /usr' });
    assert.equal(resultOf(r).cwd, '/usr');
    assert.equal(resultOf(r).cwd_outside_workspace, true);
    await rig.call({ command: `cd ${rig.workspace}` });
  });

  it('background jobs keep running between calls', async () => {
    const r = await rig.call({ command: 'sleep 7701 & echo $! > /tmp/bg.pid; echo started' });
    assert.equal(resultOf(r).background_processes, 1);
    const later = await rig.call({ command: 'kill -0 $(cat /tmp/bg.pid) && echo alive; jobs | wc -l' });
    assert.equal(resultOf(later).stdout.preview, 'alive\n1\n');
    await rig.call({ command: 'kill %1; wait' });
  });

  it('yield_ms returns while the command runs (accepted_async); write feeds its stdin; read returns the rest and the exit status', async () => {
    const started = await rig.call({ command: 'echo waiting; read x; echo "got $x"; read y; echo "and $y"; exit_is_next=1', yield_ms: 300 });
    assert.equal(started.status, 'accepted_async');
    assert.equal(started.error?.code, 'effect_in_progress');
    assert.equal(resultOf(started).running, true);
    assert.equal(resultOf(started).stdout.preview, 'waiting\n');
    const busy = await rig.call({ command: 'echo no' });
    assert.equal(busy.status, 'failed');
    assert.equal(busy.error?.code, 'effect_in_progress');
    const wrote = await rig.call({ action: 'write', text: 'one\n', yield_ms: 300 });
    assert.equal(wrote.status, 'accepted_async');
    assert.equal(resultOf(wrote).stdout.preview, 'got one\n');
    // Each call returns the output since the previous one: none is returned twice, none lost.
    const quick = await rig.call({ action: 'write', text: 'two\n', yield_ms: 0 });
    const read = resultOf(quick).running ? await rig.call({ action: 'read', yield_ms: 10_000 }) : quick;
    assert.equal(read.status, 'succeeded');
    assert.equal(resultOf(read).running, false);
    assert.equal(resultOf(read).exit_code, 0);
    assert.equal(resultOf(quick).stdout.preview + (read === quick ? '' : resultOf(read).stdout.preview), 'and two\n');
    const none = await rig.call({ action: 'read' });
    assert.equal(none.error?.code, 'not_found');
  });

  it('C-c interrupts the command (not the shell); C-d ends its stdin', async () => {
    await rig.call({ command: 'export KEPT=1' });
    const started = await rig.call({ command: 'sleep 7702; echo "after $?"', yield_ms: 200 });
    assert.equal(started.status, 'accepted_async');
    const c = await rig.call({ action: 'write', key: 'C-c', yield_ms: 10_000 });
    assert.equal(resultOf(c).control?.signalled_processes, 1);
    assert.equal(resultOf(c).stdout.preview, 'after 130\n');
    assert.equal(resultOf(c).session_state, 'open');
    const cat = await rig.call({ command: 'cat; echo done', yield_ms: 200 });
    assert.equal(cat.status, 'accepted_async');
    const d = await rig.call({ action: 'write', text: 'abc\n', key: 'C-d', yield_ms: 10_000 });
    assert.equal(d.status, 'succeeded');
    assert.equal(resultOf(d).stdout.preview, 'abc\ndone\n');
    assert.equal(resultOf(await rig.call({ command: 'echo $KEPT' })).stdout.preview, '1\n');
  });

  it('a timeout ends the command and the session, truthfully; the next run opens a new session', async () => {
    const r = await rig.call({ command: 'export GONE=1; sleep 7703', timeout_ms: 500 });
    assert.equal(r.status, 'timed_out');
    assert.equal(resultOf(r).reason, 'timeout');
    assert.equal(resultOf(r).session_state, 'ended');
    assert.equal(resultOf(r).session_ended?.reason, 'timeout');
    const next = await rig.call({ command: 'echo "[$GONE]"; pwd' });
    assert.equal(resultOf(next).stdout.preview, `[]\n${rig.workspace}\n`);
  });

  it('`exit` in a command ends the session and says so', async () => {
    const r = await rig.call({ command: 'exit 3' });
    assert.equal(r.status, 'failed');
    assert.equal(resultOf(r).exit_code, 3);
    assert.equal(resultOf(r).reason, 'session_ended');
    assert.equal(resultOf(r).session_ended?.reason, 'shell_exited');
    assert.equal((await rig.call({ command: 'echo fresh' })).status, 'succeeded');
  });

  it('named sessions are separate; a task holds at most 4 (limit_exceeded past it); close frees one', async () => {
    await rig.call({ command: 'export WHO=a', session: 'a' });
    await rig.call({ command: 'export WHO=b', session: 'b' });
    await rig.call({ command: 'true', session: 'c' });
    assert.equal(resultOf(await rig.call({ command: 'echo $WHO', session: 'a' })).stdout.preview, 'a\n');
    const fifth = await rig.call({ command: 'true', session: 'e' });
    assert.equal(fifth.error?.code, 'limit_exceeded');
    assert.equal((await rig.call({ command: 'true', session: 'e' }, 'another-task')).status, 'succeeded');
    const closed = await rig.call({ action: 'close', session: 'c' });
    assert.equal(resultOf(closed).session_state, 'ended');
    assert.equal((await rig.call({ command: 'true', session: 'e' })).status, 'succeeded');
    await rig.call({ action: 'close', session: 'e' });
    await rig.call({ action: 'close', session: 'b' });
    await rig.call({ action: 'close', session: 'a' });
  });

  it('restart gives a fresh shell in the workspace root', async () => {
    await rig.call({ command: 'cd sub; export R=1' });
    const r = await rig.call({ action: 'restart' });
    assert.equal(r.status, 'succeeded');
    assert.equal(resultOf(r).cwd, '.');
    assert.equal(resultOf(await rig.call({ command: 'echo "[$R]"' })).stdout.preview, '[]\n');
  });

  it('leaves no stdin FIFO directory behind after close', async () => {
    await rig.call({ action: 'close' });
    assert.equal(existsSync('/run/toolgate-session'), false);
  });
});

describe('shell.session: a shell killed between commands', () => {
  it('is replaced by a new session on the next run', async () => {
    const rig = await sessionRig();
    try {
      await rig.call({ command: 'export OLD=1; (sleep 0.2; kill -9 $$) &' });
      const entry = rig.tool.sessions.get('task-session', 'default');
      const { waitFor } = await import('../../support/processes.js');
      assert.ok(await waitFor(() => entry?.session.ended === true, 10_000));
      const r = await rig.call({ command: 'echo "[$OLD]"' });
      assert.equal(r.status, 'succeeded');
      assert.equal(resultOf(r).stdout.preview, '[]\n');
    } finally {
      await rig.done();
    }
  });
});
