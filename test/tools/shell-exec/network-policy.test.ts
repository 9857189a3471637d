// What the policy sees of `network: allowlist`, before anything runs: the network effect class
// and the grant's host entries as the resources (the destinations are known only at connect
// time, and each is authorized then); what is refused without bubblewrap; and the mounts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type TaskId } from '../../../src/protocol/index.js';
import { bindGrant, CompiledGrant } from '../../../src/policy/index.js';
import { createRuntime } from '../../../src/runtime/index.js';
import { bwrapArgs, NO_WORKSPACE_MOUNTS } from '../../../src/sandbox/index.js';
import { createShellExec } from '../../../src/tools/shell-exec/tool.js';
import { tempDirs } from '../../support/fixtures.js';
import { PERMIT_HOSTS } from './network-rig.js';

const BASE = { tools: ['*'], read: ['**'], write: ['**'] };

async function callWith(grant: Record<string, unknown>, tool = createShellExec({ graceMs: 300 })) {
  const dirs = tempDirs('tg-netpolicy');
  const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [tool as never], grant: grant as never, policies: [{ name: 'hosts.cedar', text: PERMIT_HOSTS }] });
  try {
    const receipt = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'task-np', tool: 'shell.exec', arguments: { argv: ['touch', 'ran'], network: 'allowlist' } });
    return { receipt, ran: existsSync(join(dirs.workspace, 'ran')) };
  } finally {
    await rt.close();
    dirs.cleanup();
  }
}

test('allowlist needs the network effect class: without it denied, nothing spawned', async () => {
  const { receipt, ran } = await callWith({ ...BASE, effects: ['read', 'write', 'execute'], hosts: ['registry.test'] });
  assert.equal(receipt.status, 'denied');
  assert.equal(receipt.error?.code, 'policy_denied');
  assert.equal(receipt.normalized_action?.effect_class, 'network');
  assert.equal(ran, false);
});

test('the action names the grant host entries; a grant that names no host is refused on host *', async () => {
  const named = await callWith({ ...BASE, effects: ['read', 'write', 'execute', 'network'], hosts: ['registry.test:8080', '*.example.test'] });
  assert.equal(named.receipt.status, 'succeeded', JSON.stringify(named.receipt.error));
  assert.deepEqual(
    named.receipt.normalized_action?.resources.filter((r) => r.kind === 'host'),
    [
      { kind: 'host', host: '*.example.test', port: null },
      { kind: 'host', host: 'registry.test', port: 8080 },
    ],
  );
  const none = await callWith({ ...BASE, effects: ['read', 'write', 'execute', 'network'] });
  assert.equal(none.receipt.status, 'denied');
  assert.deepEqual(none.receipt.normalized_action?.resources.filter((r) => r.kind === 'host'), [{ kind: 'host', host: '*', port: null }]);
  assert.equal(none.ran, false);
});

test('host entries under a caveat: only those every scope covers', () => {
  const grant = bindGrant({ ...BASE, effects: ['network'], hosts: ['*.example.test', 'other.test'] }, { tenant: 't', principal: 'p', task_id: 'task-np' as TaskId, attempt_id: null, cancellation_epoch: 0 });
  const narrowed = new CompiledGrant({ ...grant, caveats: [{ hosts: ['api.example.test:443', 'third.test'] }] });
  assert.deepEqual(narrowed.hostEntries(), [{ host: 'api.example.test', port: 443 }]);
});

test('without bubblewrap allowlist is refused (unsupported): no network namespace would stop a bypass', async () => {
  const { receipt, ran } = await callWith({ ...BASE, effects: ['read', 'write', 'execute', 'network'], hosts: ['registry.test'] }, createShellExec({ bwrapPath: null, allowProcessIsolation: true }));
  assert.equal(receipt.status, 'failed');
  assert.equal(receipt.error?.code, 'unsupported');
  assert.deepEqual(receipt.error?.data, { argument: 'network' });
  assert.equal(ran, false);
});

test('the profile: no --share-net, the run proxy socket bound read-only into the fresh /run', () => {
  const p = { workspace: '/w', workspaceWritable: true, cwd: '/w', homes: [], hide: [], user: { uid: 0, gid: 0 }, workspaceMounts: NO_WORKSPACE_MOUNTS } as const;
  const args = bwrapArgs({ ...p, network: 'allowlist', proxySocket: '/tmp/toolgate-net-x/proxy.sock' }, 3);
  assert.equal(args.includes('--share-net'), false);
  const bind = args.indexOf('/tmp/toolgate-net-x/proxy.sock');
  assert.deepEqual(args.slice(bind - 1, bind + 2), ['--ro-bind', '/tmp/toolgate-net-x/proxy.sock', '/run/toolgate/proxy.sock']);
  assert.ok(bind > args.indexOf('/run'), 'after /run is replaced');
  assert.ok(args.includes('--unshare-all'));
  assert.throws(() => bwrapArgs({ ...p, network: 'allowlist' }, 3));
});
