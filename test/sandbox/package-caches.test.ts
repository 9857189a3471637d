// Scoped package caches (docs/shell.md#package-caches), with real bwrap and the runtime's default
// state dirs: inside the sandbox npm, pip, cargo, go and XDG caches point at the workspace's own
// folder (bound at /run/toolgate-cache), never the host's; what workspace A's command put in its
// cache is there for A's next command and invisible to workspace B, by the fixed path and by A's
// host path alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { PERMIT_ALL, GRANT } from '../tools/shell-exec/rig.js';
import { tempDirs } from '../support/fixtures.js';

function stdoutOf(r: Receipt): string {
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  return (r.result as { stdout: { preview: string } }).stdout.preview;
}

test('a package cached by one workspace is not visible to another; the host caches are never used', async () => {
  const a = tempDirs('tg-cache-a');
  const b = tempDirs('tg-cache-b');
  const opened: Runtime[] = [];
  try {
    // No stateDir: each runtime takes its default, ~/.local/state/toolgate/<workspace id>.
    const rtA = await createRuntime({ workspace: a.workspace, grant: GRANT, policies: PERMIT_ALL });
    opened.push(rtA);
    const rtB = await createRuntime({ workspace: b.workspace, grant: GRANT, policies: PERMIT_ALL });
    opened.push(rtB);
    let seq = 0;
    const exec = (rt: Runtime, script: string): Promise<Receipt> =>
      rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'cache', tool: 'shell.exec', arguments: { shell: 'bash', script }, idempotency_key: `k${seq++}` });

    const env = stdoutOf(await exec(rtA, 'for v in npm_config_cache PIP_CACHE_DIR CARGO_HOME GOCACHE GOMODCACHE XDG_CACHE_HOME; do echo "$v=${!v}"; done'));
    assert.equal(
      env,
      ['npm_config_cache=/run/toolgate-cache/npm', 'PIP_CACHE_DIR=/run/toolgate-cache/pip', 'CARGO_HOME=/run/toolgate-cache/cargo', 'GOCACHE=/run/toolgate-cache/go-build', 'GOMODCACHE=/run/toolgate-cache/go-mod', 'XDG_CACHE_HOME=/run/toolgate-cache/xdg', ''].join('\n'),
    );

    // A "package" written the way npm would write its cache.
    stdoutOf(await exec(rtA, 'mkdir -p "$npm_config_cache/_cacache" && echo pkg-from-a > "$npm_config_cache/_cacache/left-pad.tgz" && echo ok'));
    const hostA = join(rtA.stateDir, 'cache', rtA.workspace.id, 'npm', '_cacache', 'left-pad.tgz');
    assert.equal(readFileSync(hostA, 'utf8'), 'pkg-from-a\n', 'it landed in A’s folder under A’s state dir');
    assert.match(stdoutOf(await exec(rtA, 'cat "$npm_config_cache/_cacache/left-pad.tgz"')), /pkg-from-a/, 'A finds it again');

    const fromB = await exec(rtB, `ls -A "$npm_config_cache" 2>&1; cat /run/toolgate-cache/npm/_cacache/left-pad.tgz 2>&1; cat ${hostA} 2>&1; ls ${rtA.stateDir} 2>&1; true`);
    const seen = stdoutOf(fromB);
    assert.doesNotMatch(seen, /pkg-from-a/, 'B sees nothing of A’s cache');
    assert.match(seen, /No such file or directory/);
    // A shell.session of A has the same cache; one of B does not see A's package.
    const session = (rt: Runtime, command: string): Promise<Receipt> =>
      rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'cache-session', tool: 'shell.session', arguments: { command }, idempotency_key: `k${seq++}` });
    assert.match(stdoutOf(await session(rtA, 'echo "$npm_config_cache"; cat "$npm_config_cache/_cacache/left-pad.tgz"')), /^\/run\/toolgate-cache\/npm\npkg-from-a\n$/);
    assert.doesNotMatch(stdoutOf(await session(rtB, 'cat "$npm_config_cache/_cacache/left-pad.tgz" 2>&1; true')), /pkg-from-a/);
    // The host's own npm cache is not where anything went.
    assert.ok(!existsSync(join(b.workspace, '.npm')) && !existsSync(join(a.workspace, '.npm')));
  } finally {
    for (const rt of opened) {
      await rt.close();
      rmSync(rt.stateDir, { recursive: true, force: true });
    }
    a.cleanup();
    b.cleanup();
  }
});

test('the receipt records the toolchains a command was shown, resolved, with their version, and the one its executable came from', async () => {
  const d = tempDirs('tg-toolchain');
  // Not under /tmp (the sandbox's own) nor a home: a configured toolchain shown read-only.
  const base = mkdtempSync('/var/tmp/tg-toolchain-');
  const real = join(base, 'node-v20.99.1', 'bin');
  mkdirSync(real, { recursive: true });
  writeFileSync(join(real, 'fakenode'), '#!/bin/sh\necho "fake node $1"\n', { mode: 0o755 });
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT, policies: PERMIT_ALL, toolchains: { defaults: false, extra: [real] } });
  try {
    const call = (argv: string[], key: string): Promise<Receipt> => rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'tc', tool: 'shell.exec', arguments: { argv }, idempotency_key: key });
    const used = await call(['fakenode', 'x'], 'k1');
    assert.equal(stdoutOf(used), "fake node x\n");
    assert.deepEqual((used.result as { toolchains?: unknown }).toolchains, [{ path: real, source: real, version: 'v20.99.1', used: true }]);
    const other = await call(['true'], 'k2');
    assert.deepEqual((other.result as { toolchains?: unknown }).toolchains, [{ path: real, source: real, version: 'v20.99.1', used: false }]);
    // What the receipt holds is what the client was answered: read back from the store.
    const stored = await rt.store.getReceipt(used.receipt_id);
    assert.deepEqual((stored?.result as { toolchains?: unknown }).toolchains, (used.result as { toolchains?: unknown }).toolchains);
  } finally {
    await rt.close();
    d.cleanup();
    rmSync(base, { recursive: true, force: true });
  }
});
