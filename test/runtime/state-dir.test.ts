// A state dir that cannot be created is the typed store_unavailable, at once. Before, Node's
// recursive mkdir spun at full CPU forever on a parent where mkdir(2) keeps failing with ENOENT
// (`toolgate call … --state-dir /proc/nope/x` never returned).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

test('traced with strace, each folder of a new state dir is synced in its parent when the runtime opens', () => {
  const d = tempDirs('tg-state-sync');
  try {
    const state = join(d.base, 'a', 'b', 'state');
    const trace = join(d.base, 'trace');
    const script = `import { createRuntime } from ${JSON.stringify(join(import.meta.dirname, '../../src/runtime/index.ts'))};
const rt = await createRuntime({ workspace: ${JSON.stringify(d.workspace)}, stateDir: ${JSON.stringify(state)} });
await rt.close();`;
    const r = spawnSync('strace', ['-f', '-qq', '-y', '-o', trace, '-e', 'trace=mkdir,fsync', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(trace, 'utf8').split('\n');
    for (const dir of [join(d.base, 'a'), join(d.base, 'a', 'b'), state]) {
      const made = lines.findIndex((l) => l.includes(`mkdir("${dir}", 0700`));
      assert.ok(made >= 0, `${dir} was made`);
      // Its parent synced after it was made (a resumed call's descriptor is on the line where it started).
      assert.ok(lines.some((l, i) => i > made && l.includes(`fsync(`) && l.includes(`<${dirname(dir)}>`)), `${dirname(dir)} synced after ${dir} was made`);
    }
  } finally {
    d.cleanup();
  }
});
