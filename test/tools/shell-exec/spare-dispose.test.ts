// shell.exec keeps a spare wrapper per workspace (src/sandbox/spare.ts); closing the runtime
// must end it: no process of this runtime is left waiting once close() returns and it exits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { Sandbox } from '../../../src/sandbox/index.js';
import { shellRig } from './rig.js';
import { sessionRig } from '../shell-session/rig.js';
import { inotifyInstances } from '../../support/inotify.js';

const skip = new Sandbox({ workspace: '/tmp', spare: false }).host.cgroups.bases.pids ? false : 'no writable pids cgroup: no spare wrapper';

/** This process's children that are a spare wrapper (its script reads the run's lines from fd 4). */
function spares(): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) !== process.pid || fields[0] === 'Z') continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes('IFS= read -r n <&4')) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

test('closing the runtime ends shell.exec\'s spare wrapper', { skip }, async () => {
  const r = await shellRig();
  let closed = false;
  try {
    const first = await r.exec('true');
    assert.equal(first.status, 'succeeded');
    for (let i = 0; i < 2000 && spares().length === 0; i++) await new Promise((res) => setTimeout(res, 10));
    const before = spares();
    assert.ok(before.length > 0, 'a spare wrapper waits after a run');
    await r.done();
    closed = true;
    for (let i = 0; i < 1000 && spares().length > 0; i++) await new Promise((res) => setTimeout(res, 10));
    assert.deepEqual(spares(), []);
  } finally {
    if (!closed) await r.done();
  }
});


test("closing the runtime ends shell.exec's and shell.session's workspace watches", async () => {
  const before = inotifyInstances();
  for (const [tool, rig] of [
    ['shell.exec', async () => { const r = await shellRig(); return { run: () => r.exec('true'), done: r.done }; }],
    ['shell.session', async () => { const r = await sessionRig(); return { run: () => r.call({ command: 'true' }), done: r.done }; }],
  ] as const) {
    const r = await rig();
    let closed = false;
    try {
      const first = await r.run();
      assert.equal(first.status, 'succeeded', JSON.stringify(first.error));
      assert.equal(inotifyInstances(), before + 1, `${tool}: one instance for its sandbox of this workspace`);
      await r.done();
      closed = true;
      // Closed on the thread pool (the kernel drops each watch in close()).
      for (let i = 0; i < 1000 && inotifyInstances() > before; i++) await new Promise((res) => setTimeout(res, 10));
      assert.equal(inotifyInstances(), before, `${tool}: closed with the runtime`);
    } finally {
      if (!closed) await r.done();
    }
  }
});
