// Scoped package caches (docs/shell.md#package-caches), with real bwrap and the runtime's default
// state dirs: inside the sandbox npm, pip, cargo, go and XDG caches point at the workspace's own
// folder (bound at /run/toolgate-cache), never the host's; what workspace A's command put in its
// cache is there for A's next command and invisible to workspace B, by the fixed path and by A's
// host path alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
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
