// Issue 10 item 11 (sweep): temporary entries left by a crash are removed when the runtime opens,
// only those whose owner is gone; fs.read never returns one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime } from '../../src/runtime/index.js';
import { isToolgateTempName, tempName, partName } from '../../src/resources/index.js';

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
