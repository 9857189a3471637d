import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectCgroups, SandboxCgroups } from '../../src/sandbox/cgroups.js';
import { processStat } from '../../src/sandbox/process-table.js';
import { waitFor } from './fixtures.js';

const host = detectCgroups();

test('a join writes the pid into every group; removing the groups while joins are in flight closes their descriptors only after', { skip: host.bases.pids ? false : 'no writable pids cgroup' }, async () => {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  const cg = SandboxCgroups.create(host, 10);
  try {
    const pid = child.pid as number;
    await cg.join(pid);
    assert.deepEqual(cg.members(), [pid]);
    for (const f of cg.procsFiles) assert.match(readFileSync(f, 'utf8'), new RegExp(`^${pid}$`, 'm'));
    // 20 joins in flight, then remove(): the descriptors stay open until they settle.
    const joins = Array.from({ length: 20 }, () => cg.join(pid));
    assert.equal(cg.remove(), false, 'the groups still hold the process');
    const settled = await Promise.allSettled(joins);
    assert.equal(settled.filter((s) => s.status === 'fulfilled').length, 20);
    await assert.rejects(cg.join(pid), /removed/);
  } finally {
    child.kill('SIGKILL');
    await exited;
    for (let i = 0; i < 100 && !cg.remove(); i++) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(cg.remove(), true);
});

test("the sweep kills what is left in a dead runtime's groups of this pid namespace, and only removes another namespace's when empty", { skip: host.bases.pids ? false : 'no writable pids cgroup' }, async () => {
  const base = host.bases.pids as string;
  // A pid that named a process a moment ago and names none now: a dead runtime's.
  const gone = spawn('true', { stdio: 'ignore' });
  await new Promise((r) => gone.once('exit', r));
  const dead = gone.pid as number;
  const ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1] as string;
  const ours = join(base, `toolgate-${dead}-${ns}-aaaaaaaaaaaa`);
  const theirs = join(base, `toolgate-${dead}-${Number(ns) + 1}-bbbbbbbbbbbb`);
  const sleepers = [ours, theirs].map((dir) => {
    mkdirSync(dir);
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    writeFileSync(join(dir, 'cgroup.procs'), String(child.pid));
    return child;
  });
  const exits = sleepers.map((c) => new Promise((r) => c.once('exit', (_code, signal) => r(signal))));
  try {
    detectCgroups(); // what a runtime does at its start
    assert.equal(await exits[0], 'SIGKILL', "our namespace's leftover is killed");
    // Removed by this sweep once the process is gone, or by the next one.
    await waitFor(() => (detectCgroups(), !existsSync(ours)), 5_000, 'its group to be removed');
    const st = processStat(sleepers[1]?.pid as number);
    assert.ok(st !== null && st.state !== 'Z', "another namespace's process is left alone");
    assert.ok(existsSync(theirs), 'and its group kept while it holds one');
  } finally {
    for (const c of sleepers) c.kill('SIGKILL');
    await Promise.all(exits);
    for (const dir of [ours, theirs]) for (let i = 0; i < 100 && existsSync(dir); i++) {
      try {
        rmdirSync(dir);
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }
});
