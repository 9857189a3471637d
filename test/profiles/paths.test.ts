// The agent's absolute paths: beneath the root they become workspace-relative; anything else is
// passed on unchanged, so the runtime's normalize stage (not the profile) refuses it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { absolutePath, outsideWorkspace, workspacePath } from '../../src/profiles/paths.js';
import { escapeGlob, scopeOf } from '../../src/profiles/claude-code/search-scope.js';

const ROOT = '/srv/ws';

test('an absolute path beneath the root becomes workspace-relative; the root itself is "."', () => {
  assert.equal(workspacePath('/srv/ws/src/a.ts', ROOT), 'src/a.ts');
  assert.equal(workspacePath('/srv/ws', ROOT), '.');
  assert.equal(workspacePath('/srv/ws/', ROOT), '.');
  assert.equal(workspacePath('src/a.ts', ROOT), 'src/a.ts', 'a relative path is left to the runtime');
});

test('a path that only looks beneath the root (a sibling prefix, .. segments) is passed on absolute', () => {
  for (const p of ['/srv/ws2/a.ts', '/srv/ws/../etc/passwd', '/srv/ws/a/../../x', '/etc/passwd']) {
    assert.equal(workspacePath(p, ROOT), p, p);
    assert.equal(outsideWorkspace(p, ROOT), true, p);
  }
});

test('search scopes: a directory is its own path and everything beneath it, glob characters escaped', () => {
  assert.deepEqual(scopeOf(undefined, ROOT), { prefix: null });
  assert.deepEqual(scopeOf('/srv/ws', ROOT), { prefix: null });
  assert.deepEqual(scopeOf('/srv/ws/src/', ROOT), { prefix: 'src' });
  assert.equal(escapeGlob('a[1]/b*{c}'), 'a\\[1\\]/b\\*\\{c\\}');
  const out = scopeOf('/etc', ROOT);
  assert.ok('refuse' in out && out.refuse.code === 'path_escape');
  assert.equal(absolutePath('.', ROOT), ROOT);
  assert.equal(absolutePath('src/a.ts', ROOT), '/srv/ws/src/a.ts');
});
