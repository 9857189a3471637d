// The audit key signs the checkpoints that make a lost receipt visible; a tool that could read it
// could forge them. It lives outside the workspace and the state dir; the sandbox hides it (the
// runtime's hidden paths) and the fs tools cannot leave the workspace. Attacks: fs.read by
// absolute and by relative path, shell.exec `cat` and a copy into the workspace, with a real
// bwrap sandbox. A control file beside the key IS readable from the sandbox, so the folder is
// visible and only the hiding stops the read. Crossings (key bytes in any result or file): 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PROTOCOL_VERSION, type Receipt } from '../../../src/protocol/index.js';
import { createRuntime } from '../../../src/runtime/index.js';
import { PERMIT_ALL, GRANT } from '../../tools/shell-exec/rig.js';
import { tempDirs } from '../../support/fixtures.js';

test('no tool reads the audit key: fs.read and shell.exec cat find nothing, 0 crossings', async () => {
  const d = tempDirs('tg-audit-hide');
  // Not under /tmp: the sandbox's private /tmp would hide it whatever the runtime did.
  const keyDir = realpathSync(mkdtempSync('/var/tmp/tg-audit-key-'));
  const keyFile = join(keyDir, 'audit-key');
  writeFileSync(join(keyDir, 'control.txt'), 'control-visible\n');
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT, policies: PERMIT_ALL, audit: { keyFile } });
  try {
    const pem = readFileSync(keyFile, 'utf8');
    assert.match(pem, /BEGIN PRIVATE KEY/);
    const secretLine = pem.split('\n')[1] as string;
    let seq = 0;
    const call = (tool: string, args: Record<string, unknown>): Promise<Receipt> =>
      rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'attacker', tool, arguments: args, idempotency_key: `k${seq++}` });
    const attempts: Receipt[] = [];

    // The control: the sandbox shows the key's folder, and the file beside the key.
    const control = await call('shell.exec', { argv: ['cat', join(keyDir, 'control.txt')] });
    assert.equal(control.status, 'succeeded');
    assert.match(JSON.stringify(control.result), /control-visible/);

    attempts.push(await call('fs.read', { path: keyFile }));
    attempts.push(await call('fs.read', { path: relative(d.workspace, keyFile) }));
    for (const a of attempts) assert.notEqual(a.status, 'succeeded', `fs.read ${JSON.stringify(a.error)}`);
    attempts.push(await call('shell.exec', { argv: ['cat', keyFile] }));
    attempts.push(await call('shell.exec', { shell: 'bash', script: `cp ${keyFile} stolen.pem; base64 -w0 ${keyFile}; od -c ${keyFile} | head` }));
    attempts.push(await call('shell.exec', { shell: 'bash', script: `cat ${join(d.state, 'audit-checkpoint.json')} ${d.state}/toolgate.db 2>&1 | head -c 200` }));

    const crossings = attempts.filter((r) => JSON.stringify(r).includes(secretLine) || JSON.stringify(r).includes(Buffer.from(pem).toString('base64').slice(0, 40))).length;
    const stolen = existsSync(join(d.workspace, 'stolen.pem')) ? readFileSync(join(d.workspace, 'stolen.pem'), 'utf8') : '';
    assert.equal(crossings + (stolen.includes(secretLine) ? 1 : 0), 0, 'the key crossed into a tool result or the workspace');
    assert.equal(stolen, '', 'the copy the sandbox made is empty (it read /dev/null)');
  } finally {
    await rt.close();
    d.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  }
});

test('an audit key inside the workspace or the state dir is refused at open', async () => {
  const d = tempDirs('tg-audit-where');
  try {
    mkdirSync(d.state, { recursive: true });
    for (const keyFile of [join(d.workspace, 'k'), join(d.state, 'k')]) {
      await assert.rejects(createRuntime({ workspace: d.workspace, stateDir: d.state, audit: { keyFile } }), (e: { code?: string; data?: { kind?: string } }) => e.code === 'invalid_resource' && e.data?.kind === 'audit_key');
      assert.ok(!existsSync(keyFile), 'nothing was written');
    }
  } finally {
    d.cleanup();
  }
});

test('an audit key that group or others may read is refused', async () => {
  const d = tempDirs('tg-audit-mode');
  const keyDir = mkdtempSync('/var/tmp/tg-audit-mode-');
  try {
    const keyFile = join(keyDir, 'k');
    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, audit: { keyFile } });
    await rt.close();
    const { chmodSync, statSync } = await import('node:fs');
    assert.equal(statSync(keyFile).mode & 0o777, 0o600, 'created 0600');
    chmodSync(keyFile, 0o644);
    await assert.rejects(createRuntime({ workspace: d.workspace, stateDir: d.state, audit: { keyFile } }), (e: { code?: string }) => e.code === 'invalid_resource');
  } finally {
    d.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  }
});
