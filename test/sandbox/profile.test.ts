import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bwrapArgs, NO_WORKSPACE_MOUNTS, systemSecrets } from '../../src/sandbox/index.js';
import { tempWorkspace } from './fixtures.js';

function mountsOf(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--tmpfs') out.push(`tmpfs ${args[++i]}`);
    else if (a === '--bind' || a === '--ro-bind') {
      out.push(`${a.slice(2)} ${args[i + 1]} ${args[i + 2]}`);
      i += 2;
    }
  }
  return out;
}

test('home dot-entries are hidden after the workspace is bound, and one that encloses the workspace before it', () => {
  const t = tempWorkspace('tg-profile-');
  try {
    const home = join(t.dir, 'home');
    const inner = join(home, '.cache', 'ws');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    mkdirSync(inner, { recursive: true });
    writeFileSync(join(home, '.npmrc'), 'token');
    writeFileSync(join(home, 'visible.txt'), '');
    const args = bwrapArgs({ workspace: inner, workspaceWritable: false, cwd: inner, network: 'none', homes: [home], hide: ['/nonexistent-state'], user: { uid: 0, gid: 0 }, workspaceMounts: NO_WORKSPACE_MOUNTS }, 3);
    assert.deepEqual(mountsOf(args), [
      'ro-bind / /',
      'tmpfs /tmp',
      'tmpfs /run',
      `tmpfs ${join(home, '.cache')}`,
      `ro-bind ${inner} ${inner}`,
      `ro-bind /dev/null ${join(home, '.npmrc')}`,
      `tmpfs ${join(home, '.ssh')}`,
      // root without capabilities still reads root-only files as their owner
      ...systemSecrets().filter((f) => existsSync(f)).map((f) => `ro-bind /dev/null ${f}`),
    ]);
    for (const flag of ['--unshare-all', '--die-with-parent', '--new-session']) assert.ok(args.includes(flag), flag);
    assert.deepEqual(args.slice(args.indexOf('--cap-drop'), args.indexOf('--cap-drop') + 2), ['--cap-drop', 'ALL']);
    assert.ok(!args.includes('--share-net'));
    assert.ok(bwrapArgs({ workspace: inner, workspaceWritable: true, cwd: inner, network: 'host', homes: [], hide: [], user: { uid: 0, gid: 0 }, workspaceMounts: NO_WORKSPACE_MOUNTS }, 3).includes('--share-net'));
  } finally {
    t.remove();
  }
});

test('a home holding only dot-entries is covered whole, with one mount', () => {
  const t = tempWorkspace('tg-profile-');
  try {
    const home = join(t.dir, 'home');
    mkdirSync(join(home, '.config'), { recursive: true });
    writeFileSync(join(home, '.netrc'), 'machine x password y');
    const ws = join(t.dir, 'ws');
    mkdirSync(ws);
    const args = bwrapArgs({ workspace: ws, workspaceWritable: true, cwd: ws, network: 'none', homes: [home], hide: [], user: { uid: 0, gid: 0 }, workspaceMounts: NO_WORKSPACE_MOUNTS }, 3);
    assert.deepEqual(mountsOf(args).filter((m) => m.includes(home)), [`tmpfs ${home}`]);
  } finally {
    t.remove();
  }
});

test('workspace mounts come after the workspace bind: protected entries read-only onto themselves (writable workspace only), secret files /dev/null, secret dirs a read-only tmpfs', () => {
  const ws = '/w';
  const workspaceMounts = { readOnly: ['/w/.git'], maskFiles: ['/w/.env'], maskDirs: ['/w/.aws'] };
  const base = { workspace: ws, cwd: ws, network: 'none' as const, homes: [], hide: [], user: { uid: 0, gid: 0 }, workspaceMounts };
  const writable = bwrapArgs({ ...base, workspaceWritable: true }, 3);
  assert.deepEqual(mountsOf(writable).slice(3, 7), ['bind /w /w', 'ro-bind /w/.git /w/.git', 'ro-bind /dev/null /w/.env', 'tmpfs /w/.aws']);
  assert.deepEqual(writable.slice(writable.indexOf('/w/.aws') + 1, writable.indexOf('/w/.aws') + 3), ['--remount-ro', '/w/.aws']);
  const readOnly = bwrapArgs({ ...base, workspaceWritable: false }, 3);
  assert.deepEqual(mountsOf(readOnly).slice(3, 6), ['ro-bind /w /w', 'ro-bind /dev/null /w/.env', 'tmpfs /w/.aws']);
});
