// A state dir that cannot be created is the typed store_unavailable, at once. Before, Node's
// recursive mkdir spun at full CPU forever on a parent where mkdir(2) keeps failing with ENOENT
// (`toolgate call … --state-dir /proc/nope/x` never returned).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ToolgateError } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

test('a state dir under /proc is store_unavailable, not a hang', async () => {
  const d = tempDirs('tg-state-dir');
  try {
    await assert.rejects(createRuntime({ workspace: d.workspace, stateDir: '/proc/nope/x' }), (e: unknown) => {
      assert.ok(ToolgateError.isInstance(e) && e.code === 'store_unavailable', String(e));
      assert.deepEqual(e.data, { operation: 'create the state dir', cause_code: 'ENOENT', state_dir: '/proc/nope/x' });
      return true;
    });
    // The built CLI, bounded: a hang is killed after 60 s and fails the test.
    const r = spawnSync(process.execPath, [BIN, 'call', 'fs.read', '--args', '{"path":"a"}', '--workspace', d.workspace, '--state-dir', '/proc/nope/x'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.signal, null, 'the CLI had to be killed');
    // The CLI names the library's store_unavailable as the start-up error state_unavailable with its fix (docs/cli.md).
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^toolgate call: state_unavailable: the state dir \/proc\/nope\/x cannot be created; fix: /);
  } finally {
    d.cleanup();
  }
});

test('missing parents of the state dir are made, private to the user', async () => {
  const d = tempDirs('tg-state-dir');
  try {
    const dir = join(d.state, 'a', 'b', 'c');
    const rt = await createRuntime({ workspace: d.workspace, stateDir: dir });
    await rt.close();
    for (const p of [join(d.state, 'a'), join(d.state, 'a', 'b'), dir]) assert.equal(statSync(p).mode & 0o777, 0o700, p);
  } finally {
    d.cleanup();
  }
});
