import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { detectCgroups, SandboxCgroups } from '../../src/sandbox/cgroups.js';

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
