// Relative links below the top level that stay inside the root (issue 10, item 18).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, testRuntime } from '../support/fixtures.js';

test('a relative link below the top level that stays inside is followed (no EBADF from a double close)', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'README.md'), 'top readme\n');
    mkdirSync(join(workspace, 'docs/deep'), { recursive: true });
    symlinkSync('../README.md', join(workspace, 'docs/README.md'));
    symlinkSync('../../docs/README.md', join(workspace, 'docs/deep/chain.md'));
    for (const path of ['docs/README.md', 'docs/deep/chain.md']) {
      for (let i = 0; i < 20; i++) {
        const r = await rt.call(envelope('fs.read', { path }));
        assert.equal(r.status, 'succeeded', `${path}: ${JSON.stringify(r.error)}`);
        assert.equal((r.result as { content: string; path: string }).content, 'top readme\n');
        assert.equal((r.result as { path: string }).path, 'README.md');
      }
    }
  } finally {
    await done();
  }
});
