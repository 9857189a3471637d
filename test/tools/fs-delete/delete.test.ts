import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshot, withHarness, type Harness } from '../fs-write/harness.js';

function gitInit(h: Harness): void {
  execFileSync('git', ['init', '-q'], { cwd: h.root });
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init'], { cwd: h.root });
}

void test('says apart a tracked file, an untracked file and a directory', () =>
  withHarness(async (h) => {
    gitInit(h);
    writeFileSync(join(h.root, 'tracked.txt'), 't\n');
    mkdirSync(join(h.root, 'dir/sub'), { recursive: true });
    writeFileSync(join(h.root, 'dir/a.txt'), 'a\n');
    writeFileSync(join(h.root, 'dir/sub/b.txt'), 'b\n');
    execFileSync('git', ['add', 'tracked.txt', 'dir/a.txt'], { cwd: h.root });
    writeFileSync(join(h.root, 'untracked.txt'), 'u\n');
    const t = await h.call('fs.delete', { path: 'tracked.txt' });
    const u = await h.call('fs.delete', { path: 'untracked.txt' });
    const d = await h.call('fs.delete', { path: 'dir', recursive: true });
    assert.deepEqual(
      [t, u, d].map((r) => { const x = r.result as { kind: string; git: string; entries_removed: number }; return [r.status, x.kind, x.git, x.entries_removed]; }),
      [
        ['succeeded', 'file', 'tracked', 1],
        ['succeeded', 'file', 'untracked', 1],
        ['succeeded', 'directory', 'partly_tracked', 4],
      ],
    );
    assert.deepEqual(readdirSync(h.root), ['.git']);
  }));

void test('a directory that is not empty needs recursive: true; nothing is removed without it', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, 'dir'));
    writeFileSync(join(h.root, 'dir/a.txt'), 'a');
    const r = await h.call('fs.delete', { path: 'dir' });
    assert.equal(r.error?.code, 'invalid_resource');
    assert.equal((r.error?.data as { reason: string }).reason, 'directory_not_empty');
    assert.equal(existsSync(join(h.root, 'dir/a.txt')), true);
  }));

void test('a tree over max_entries is limit_exceeded and nothing is removed', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, 'dir'));
    for (let i = 0; i < 20; i++) writeFileSync(join(h.root, `dir/f${i}`), `${i}`);
    const before = snapshot(h.root);
    const r = await h.call('fs.delete', { path: 'dir', recursive: true, max_entries: 10 });
    assert.equal(r.error?.code, 'limit_exceeded');
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('a tree holding a secret or a .git is policy_denied as a whole', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, 'app/.git'), { recursive: true });
    writeFileSync(join(h.root, 'app/.git/HEAD'), 'ref: x\n');
    mkdirSync(join(h.root, 'conf'));
    writeFileSync(join(h.root, 'conf/.env'), 'K=v\n');
    const before = snapshot(h.root);
    for (const path of ['app', 'conf', '.git']) {
      const r = await h.call('fs.delete', { path, recursive: true });
      assert.equal(r.error?.code, 'policy_denied', path);
    }
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('a link is removed itself, never its target outside the root', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.outside, 'keep'));
    writeFileSync(join(h.outside, 'keep/x'), 'x');
    symlinkSync(join(h.outside, 'keep'), join(h.root, 'link'));
    const r = await h.call('fs.delete', { path: 'link', recursive: true });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal((r.result as { kind: string }).kind, 'symlink');
    assert.deepEqual(readdirSync(h.root), []);
    assert.deepEqual(readdirSync(join(h.outside, 'keep')), ['x']);
  }));

void test('a deleted tree comes back byte for byte, with modes and links, through fs.undo', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, 'dir/sub'), { recursive: true });
    writeFileSync(join(h.root, 'dir/a.sh'), '#!/bin/sh\n');
    chmodSync(join(h.root, 'dir/a.sh'), 0o750);
    writeFileSync(join(h.root, 'dir/sub/b.bin'), Buffer.from([0, 1, 2, 255]));
    symlinkSync('../a.sh', join(h.root, 'dir/sub/link'));
    chmodSync(join(h.root, 'dir/sub'), 0o500);
    const before = snapshot(h.root);
    const d = await h.call('fs.delete', { path: 'dir', recursive: true });
    assert.equal(d.status, 'succeeded', JSON.stringify(d.error));
    assert.deepEqual(readdirSync(h.root), []);
    const u = await h.call('fs.undo', { receipt_id: d.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(snapshot(h.root), before);
  }));
