import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resultOf, sessionRig, type SessionRig } from './rig.js';

describe('shell.session isolation: the same masks as shell.exec, kept current while the session lives', () => {
  let rig: SessionRig;
  before(async () => {
    rig = await sessionRig();
  });
  after(async () => {
    await rig.done();
  });

  it('a secret file created after the session opened is not readable: the sandbox restarts, carrying cwd and env', async () => {
    await rig.call({ command: 'cd sub && export CARRIED=yes; sleep 7731 &' });
    const canary = `canary-${randomBytes(8).toString('hex')}`;
    writeFileSync(join(rig.workspace, '.env'), `TOKEN=${canary}\n`);
    mkdirSync(join(rig.workspace, 'sub', '.ssh'));
    writeFileSync(join(rig.workspace, 'sub', '.ssh', 'id_rsa'), `${canary}\n`);
    const r = await rig.call({ command: 'cat ../.env; cat .ssh/id_rsa; ls -A .ssh | wc -l; pwd; echo "$CARRIED"' });
    const res = resultOf(r);
    assert.ok(!JSON.stringify(res).includes(canary), 'the canary is in no part of the result');
    assert.ok(res.restarted, 'the result says the sandbox was restarted');
    assert.match(res.restarted.reason, /secret or protected entries/);
    assert.equal(res.restarted.lost_processes, 1);
    assert.equal(res.stdout.preview, `0\n${join(rig.workspace, 'sub')}\nyes\n`);
    // The next command finds the same masks: no restart.
    assert.equal(resultOf(await rig.call({ command: 'true' })).restarted, null);
  });

  it("the runtime's state dir stays invisible and .git read-only", async () => {
    const r = await rig.call({ command: `ls ${rig.rt.stateDir} 2>&1 | head -1; touch ${rig.workspace}/.git/planted 2>&1 | head -1; echo end` });
    const out = resultOf(r).stdout.preview;
    assert.doesNotMatch(out, /toolgate\.db/);
    assert.match(out, /Read-only file system/);
  });

  it('has no capabilities and no network', async () => {
    const r = await rig.call({ command: "grep CapEff /proc/self/status | tr -d '\\t'; cat /sys/class/net/*/operstate 2>/dev/null | sort | tr '\\n' ' '; ls /sys/class/net" });
    assert.match(resultOf(r).stdout.preview, /CapEff:0000000000000000/);
    assert.match(resultOf(r).stdout.preview, /^lo$/m);
    assert.equal(resultOf(r).isolation.capabilities, 'none');
  });
});
