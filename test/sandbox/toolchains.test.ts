import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { bwrapArgs, NO_WORKSPACE_MOUNTS, resolveToolchains } from '../../src/sandbox/index.js';
import { makeFakeHome } from './fake-home.js';
import { tempWorkspace } from './fixtures.js';

test('the default list finds the toolchains of a home, their bin directories newest first, and the credential files inside them', () => {
  const t = tempWorkspace('tg-toolchains-');
  try {
    const { home } = makeFakeHome(join(t.dir, 'home'));
    mkdirSync(join(home, '.nvm/versions/node/v9.0.0/bin'), { recursive: true });
    mkdirSync(join(home, '.local/lib/python3.12/site-packages'), { recursive: true });
    const found = resolveToolchains({}, [home]);
    assert.deepEqual(
      found.map((c) => c.path.slice(home.length + 1)),
      ['.pyenv', '.cargo/bin', '.nvm', '.local/bin', '.local/lib/python3.12'],
    );
    const byPath = new Map(found.map((c) => [c.path.slice(home.length + 1), c]));
    assert.deepEqual(byPath.get('.pyenv')?.bins, [join(home, '.pyenv/shims')]);
    assert.deepEqual(byPath.get('.pyenv')?.masks, [join(home, '.pyenv/versions/3.99.0/pip.conf')]);
    // v20 before v9: numeric order, newest first.
    assert.deepEqual(byPath.get('.nvm')?.bins, [join(home, '.nvm/versions/node/v20.99.0/bin'), join(home, '.nvm/versions/node/v9.0.0/bin')]);
    assert.deepEqual(byPath.get('.nvm')?.env, { NVM_DIR: join(home, '.nvm') });
    assert.deepEqual(byPath.get('.local/lib/python3.12')?.env, { PYTHONUSERBASE: join(home, '.local') });
    assert.deepEqual(resolveToolchains({ defaults: false }, [home]), []);
  } finally {
    t.remove();
  }
});

test('a toolchain that became a link to a credential store is not shown; one of the home is bound after the dot-entries are hidden, its masks after it', () => {
  const t = tempWorkspace('tg-toolchains-');
  try {
    const { home } = makeFakeHome(join(t.dir, 'home'));
    symlinkSync(join(home, '.ssh'), join(home, '.mytools'));
    assert.deepEqual(resolveToolchains({ extra: ['~/.mytools'] }, [home]).map((c) => c.path).filter((p) => p.endsWith('.mytools')), []);
    const ws = join(t.dir, 'ws');
    mkdirSync(ws);
    const toolchains = resolveToolchains({}, [home]);
    const args = bwrapArgs({ workspace: ws, workspaceWritable: true, cwd: ws, network: 'none', homes: [home], hide: [], user: { uid: 0, gid: 0 }, workspaceMounts: NO_WORKSPACE_MOUNTS, toolchains }, 3);
    const at = (a: string[]): number => args.findIndex((_, i) => a.every((x, j) => args[i + j] === x));
    const hidden = at(['--tmpfs', join(home, '.pyenv')]);
    const shown = at(['--ro-bind', join(home, '.pyenv'), join(home, '.pyenv')]);
    const masked = at(['--ro-bind', '/dev/null', join(home, '.pyenv/versions/3.99.0/pip.conf')]);
    assert.ok(hidden > 0 && shown > hidden && masked > shown, `order: hide ${hidden}, bind ${shown}, mask ${masked}`);
    assert.ok(at(['--tmpfs', join(home, '.ssh')]) > 0, '.ssh stays hidden');
    assert.equal(at(['--ro-bind', join(home, '.ssh'), join(home, '.ssh')]), -1);
  } finally {
    t.remove();
  }
});
