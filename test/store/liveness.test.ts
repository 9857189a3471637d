// The rule that says an in-flight record is abandoned, as every backend applies it (src/store/liveness.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { ABANDON_GRACE_MS, EffectOwner, hostIdentity, type Holding } from '../../src/store/index.js';

const me = new EffectOwner();
const rec = (over: Partial<Holding>): Holding => ({ task_id: 't', effect_key: 'k', owner: 'rt_other', owner_pid: process.pid, owner_host: me.host, deadline: 1_000, ...over });

test('a record of this owner is abandoned exactly when no call of it holds the record', () => {
  const mine = rec({ owner: me.id });
  assert.equal(me.abandoned(mine, 0), true);
  me.hold('t', 'k');
  assert.equal(me.abandoned(mine, Number.MAX_SAFE_INTEGER), false, 'held: never abandoned, whatever the time');
  me.letGo('t', 'k');
  assert.equal(me.abandoned(mine, 0), true);
});

test('on this host, another owner is gone exactly when its process is', () => {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const deadPid = Number(dead.stdout);
  assert.ok(deadPid > 0);
  assert.equal(me.abandoned(rec({ owner_pid: process.pid }), Number.MAX_SAFE_INTEGER), false, 'alive: not abandoned even past its deadline');
  assert.equal(me.abandoned(rec({ owner_pid: deadPid }), 0), true, 'dead: abandoned even before its deadline');
});

test('on another host, an owner is gone once its deadline plus the grace has passed', () => {
  const far = rec({ owner_host: `${me.host}-elsewhere`, owner_pid: 1 });
  assert.equal(me.abandoned(far, 1_000 + ABANDON_GRACE_MS), false);
  assert.equal(me.abandoned(far, 1_000 + ABANDON_GRACE_MS + 1), true);
});

test('TOOLGATE_HOST_ID names the host in effect records: two processes on one machine are two hosts', () => {
  assert.equal(hostIdentity({ TOOLGATE_HOST_ID: 'host-a' }), 'host-a');
  assert.equal(hostIdentity({ TOOLGATE_HOST_ID: '  ' }), hostname(), 'blank: the OS host name');
  assert.equal(hostIdentity({}), hostname());
  const a = new EffectOwner(undefined, 'host-a');
  // A live process of "host-b" is not looked up by pid on host-a: only its deadline counts.
  const onB = rec({ owner_host: 'host-b', owner_pid: process.pid, deadline: 1_000 });
  assert.equal(a.abandoned(onB, 1_000 + ABANDON_GRACE_MS + 1), true);
  assert.equal(a.host, 'host-a');
});
