// `artifacts` in toolgate.config.json: a folder (relative to the file) the runtime keeps its
// artifacts in, e.g. one that every host sharing a database mounts (docs/scale.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeOptions } from '../../src/cli/open-runtime.js';
import { createRuntime } from '../../src/runtime/index.js';
import { envelope, filesUnder, tempDirs } from '../support/fixtures.js';

test('artifacts.kind folder puts pre-images in that folder (relative to the config file), not in the state dir', async () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'before\n');
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ state_dir: '../state', artifacts: { kind: 'folder', path: '../shared-artifacts' } }));
    const opts = runtimeOptions({ workspace: d.workspace });
    assert.deepEqual(opts.artifacts, { kind: 'folder', path: join(d.base, 'shared-artifacts') });
    const rt = await createRuntime({ ...opts, grant: { tools: ['*'], effects: ['read', 'write'], read: ['**'], write: ['**'] } });
    try {
      const w = await rt.call(envelope('fs.write', { path: 'a.txt', content: 'after\n', mode: 'create_or_replace' }));
      assert.equal(w.status, 'succeeded', JSON.stringify(w.error));
    } finally {
      await rt.close();
    }
    assert.ok(filesUnder(join(d.base, 'shared-artifacts', 'sha256')).length >= 1, 'the pre-image is in the shared folder');
    assert.ok(!existsSync(join(d.state, 'artifacts')) || readdirSync(join(d.state, 'artifacts')).length === 0, 'nothing in the state dir');
  } finally {
    d.cleanup();
  }
});
