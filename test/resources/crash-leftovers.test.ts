// Issue 10 item 11 (sweep): temporary entries left by a crash are removed when the runtime opens,
// only those whose owner is gone; fs.read never returns one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime } from '../../src/runtime/index.js';
import { isToolgateTempName, tempName, partName, sweepWorkspaceTemps, Workspace } from '../../src/resources/index.js';

const listAll = (dir: string, prefix = ''): string[] =>
  readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() && !isToolgateTempName(e.name) ? [rel, ...listAll(dir, rel)] : [rel];
  });

test('leftovers of a SIGKILLed owner are swept at open; a live owner’s are kept; fs.read refuses both', async () => {
  const d = tempDirs();
  try {
    mkdirSync(join(d.workspace, 'sub'));
    const artifacts = join(d.state, 'artifacts');
    mkdirSync(artifacts, { recursive: true });
    const child = new URL('./crash-leftovers-child.ts', import.meta.url).pathname;
    const r = spawnSync(process.execPath, ['--import', 'tsx', child, d.workspace, artifacts], { stdio: 'inherit', timeout: 60_000 });
    assert.equal(r.signal, 'SIGKILL');
    const crashed = listAll(d.workspace).filter((p) => p.split('/').some(isToolgateTempName));
    assert.equal(crashed.length, 2, `the crash left a staged file and a tree: ${crashed.join(', ')}`);
    assert.equal(readdirSync(join(artifacts, 'tmp')).length, 1);
    // A live owner (this process) has work in progress: it must survive the sweep.
    const live = tempName('tmp');
    writeFileSync(join(d.workspace, 'sub', live), 'in progress\n');
    writeFileSync(join(artifacts, 'tmp', partName()), 'in progress');

    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state });
    try {
      await rt.sweptTemps();
      assert.deepEqual(listAll(d.workspace).filter((p) => p.split('/').some(isToolgateTempName)), [`sub/${live}`]);
      assert.equal(readdirSync(join(artifacts, 'tmp')).length, 1, 'only the live part is left');
      for (const path of [`sub/${live}`, ...crashed]) {
        const read = await rt.call(envelope('fs.read', { path }));
        assert.notEqual(read.status, 'succeeded', path);
      }
      const read = await rt.call(envelope('fs.read', { path: `sub/${live}` }));
      assert.equal(read.error?.code, 'invalid_resource');
      assert.equal((read.error?.data as { reason: string }).reason, 'toolgate_temp_file');
      const write = await rt.call(envelope('fs.write', { path: `sub/${live}`, content: 'x', mode: 'create_or_replace' }));
      assert.equal(write.error?.code, 'policy_denied');
    } finally {
      await rt.close();
    }
  } finally {
    d.cleanup();
  }
});

test('the sweep walks every directory beneath the root, and no link out of it, nor .git', async () => {
  const d = tempDirs();
  const outside = mkdtempSync(join(tmpdir(), 'tg-sweep-outside-'));
  const ws = Workspace.open(d.workspace);
  try {
    // Ownerless names (made before owners were recorded) count as left by a crash.
    const leftover = (n: number): string => `.tg-${n.toString(16).padStart(16, '0')}.tmp`;
    const deep = join('a', 'b', 'c', 'd', 'e');
    mkdirSync(join(d.workspace, deep), { recursive: true });
    for (let i = 0; i < 40; i++) writeFileSync(join(d.workspace, 'a', `f${i}.ts`), 'export {};\n');
    writeFileSync(join(d.workspace, leftover(1)), 'x');
    writeFileSync(join(d.workspace, deep, leftover(2)), 'x');
    mkdirSync(join(d.workspace, '.git', 'objects'), { recursive: true });
    writeFileSync(join(d.workspace, '.git', 'objects', leftover(3)), 'x');
    writeFileSync(join(outside, leftover(4)), 'x');
    symlinkSync(outside, join(d.workspace, 'a', 'link-out'));

    const removed = (await sweepWorkspaceTemps(ws)).sort();
    assert.deepEqual(removed, [`${deep}/${leftover(2)}`, leftover(1)].sort());
    assert.equal(existsSync(join(d.workspace, deep, leftover(2))), false);
    assert.equal(existsSync(join(d.workspace, '.git', 'objects', leftover(3))), true, '.git is not the sweep’s');
    assert.equal(existsSync(join(outside, leftover(4))), true, 'a link to a directory is not followed');
  } finally {
    ws.close();
    rmSync(outside, { recursive: true, force: true });
    d.cleanup();
  }
});

test('the sweep lets the event loop run every few thousand entries of a large directory, and finds a leftover at its end', async () => {
  const d = tempDirs();
  const ws = Workspace.open(d.workspace);
  try {
    const big = join(d.workspace, 'big');
    mkdirSync(big);
    for (let i = 0; i < 20_000; i++) writeFileSync(join(big, `f${i}`), '');
    const leftover = `.tg-${(0xfeed).toString(16).padStart(16, '0')}.tmp`;
    writeFileSync(join(big, leftover), 'x');
    // Read in one piece (a readdir of the whole directory, walked in one turn), it never paused:
    // the event loop waited for all 20,001 entries, all held in memory at once.
    let pauses = 0;
    const removed = await sweepWorkspaceTemps(ws, () => {
      pauses++;
      return new Promise((resolve) => setImmediate(resolve));
    });
    assert.deepEqual(removed, [`big/${leftover}`]);
    assert.ok(pauses >= 9, `paused ${pauses} times in 20,001 entries`);
  } finally {
    ws.close();
    d.cleanup();
  }
});
