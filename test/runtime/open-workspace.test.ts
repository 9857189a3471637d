// createRuntime on a workspace that cannot be one throws the typed start-up error the CLI prints
// (`invalid_workspace`, same data), not a raw ENOTDIR / EACCES from open(2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkWorkspace } from '../../src/cli/startup-faults.js';
import { StartupError } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { tempDirs } from '../support/fixtures.js';

const CHILD = join(import.meta.dirname, 'open-workspace-child.ts');

/** The StartupError a call throws (fails the test when it throws anything else, or nothing). */
async function startupErrorOf(f: () => unknown): Promise<StartupError> {
  try {
    await f();
  } catch (e) {
    assert.ok(StartupError.isInstance(e), `a StartupError, not ${String(e)}`);
    return e;
  }
  assert.fail('did not throw');
}

test('a file, a missing path and a path through a file: invalid_workspace with the CLI\'s code and data', async () => {
  const d = tempDirs('tg-open-ws');
  try {
    const file = join(d.base, 'notes.txt');
    writeFileSync(file, 'x');
    const cases = [
      { workspace: file, cause: 'ENOTDIR', says: /notes\.txt is a file; fix: / },
      { workspace: join(d.base, 'nope'), cause: 'ENOENT', says: /nope does not exist; fix: / },
      { workspace: join(file, 'sub'), cause: 'ENOTDIR', says: /sub is not a directory \(a component of its path is a file\); fix: / },
    ];
    for (const c of cases) {
      const lib = await startupErrorOf(() => createRuntime({ workspace: c.workspace, stateDir: d.state }));
      const cli = await startupErrorOf(() => checkWorkspace(c.workspace));
      assert.equal(lib.code, 'invalid_workspace');
      assert.deepEqual(lib.data, { workspace: c.workspace, cause_code: c.cause });
      assert.deepEqual({ code: lib.code, data: lib.data }, { code: cli.code, data: cli.data }, 'the library and the CLI agree');
      assert.match(lib.message, c.says);
    }
  } finally {
    d.cleanup();
  }
});

test('a directory this user cannot read: invalid_workspace with cause EACCES (run as uid 1000)', () => {
  const d = tempDirs('tg-open-ws');
  try {
    chmodSync(d.base, 0o755); // mkdtemp's 0700 would stop uid 1000 before the workspace
    const closed = join(d.base, 'closed');
    mkdirSync(closed, { mode: 0o700 }); // root's: uid 1000 may not read or enter it
    const state = join(d.base, 'state1000');
    mkdirSync(state, { mode: 0o700 });
    spawnSync('chown', ['1000:1000', state]);
    const r = spawnSync(process.execPath, ['--import', 'tsx', CHILD, closed, state], { uid: 1000, gid: 1000, encoding: 'utf8', timeout: 120_000, cwd: process.cwd() });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    assert.deepEqual(out['data'], { workspace: closed, cause_code: 'EACCES' }, r.stdout + r.stderr);
    assert.equal(out['code'], 'invalid_workspace');
    assert.match(String(out['message']), /closed cannot be read by this user; fix: /);
    // The control: the same child opens a directory it may read.
    const open = join(d.base, 'open');
    mkdirSync(open, { mode: 0o755 });
    const ok = spawnSync(process.execPath, ['--import', 'tsx', CHILD, open, state], { uid: 1000, gid: 1000, encoding: 'utf8', timeout: 120_000, cwd: process.cwd() });
    assert.equal(ok.stdout.trim().split('\n').pop(), '{"opened":true}', ok.stderr);
  } finally {
    d.cleanup();
  }
});
