import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Digest } from '../../../src/protocol/index.js';
import { snapshot, withHarness } from '../fs-write/harness.js';

void test('a rename moves the inode itself (identity preserved)', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), 'a');
    mkdirSync(join(h.root, 'd'));
    const ino = statSync(join(h.root, 'a.txt')).ino;
    const r = await h.call('fs.rename', { from: 'a.txt', to: 'd/b.txt' });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(statSync(join(h.root, 'd/b.txt')).ino, ino);
    assert.deepEqual(readdirSync(h.root), ['d']);
    const dir = await h.call('fs.rename', { from: 'd', to: 'e' });
    assert.equal(dir.status, 'succeeded');
    assert.equal(statSync(join(h.root, 'e/b.txt')).ino, ino);
  }));

void test('an existing target is already_exists unless overwrite: true, which keeps its preimage', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), 'new');
    writeFileSync(join(h.root, 'b.txt'), 'old target');
    const before = snapshot(h.root);
    const r = await h.call('fs.rename', { from: 'a.txt', to: 'b.txt' });
    assert.equal(r.error?.code, 'already_exists');
    assert.deepEqual(snapshot(h.root), before);
    const o = await h.call('fs.rename', { from: 'a.txt', to: 'b.txt', overwrite: true });
    assert.equal(o.status, 'succeeded');
    assert.equal(readFileSync(join(h.root, 'b.txt'), 'utf8'), 'new');
    assert.equal(h.rt.artifacts.get((o.result as { overwritten_preimage: Digest }).overwritten_preimage).toString(), 'old target');
    const u = await h.call('fs.undo', { receipt_id: o.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('renaming into .git/ or onto a secret path is policy_denied; a directory into itself is refused', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, '.git/hooks'), { recursive: true });
    mkdirSync(join(h.root, 'd'));
    writeFileSync(join(h.root, 'evil.sh'), '#!/bin/sh\n');
    const before = snapshot(h.root);
    assert.equal((await h.call('fs.rename', { from: 'evil.sh', to: '.git/hooks/pre-commit' })).error?.code, 'policy_denied');
    assert.equal((await h.call('fs.rename', { from: 'evil.sh', to: '.env' })).error?.code, 'policy_denied');
    assert.equal((await h.call('fs.rename', { from: 'd', to: 'd/inner' })).error?.code, 'invalid_resource');
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('undo of a directory rename moves the same inode back; a later change to it is undo_conflict', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, 'src/lib'), { recursive: true });
    writeFileSync(join(h.root, 'src/lib/a.ts'), 'a');
    const before = snapshot(h.root);
    const ino = statSync(join(h.root, 'src/lib')).ino;
    const r = await h.call('fs.rename', { from: 'src/lib', to: 'lib' });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    const u = await h.call('fs.undo', { receipt_id: r.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(snapshot(h.root), before);
    assert.equal(statSync(join(h.root, 'src/lib')).ino, ino);

    const f = await h.call('fs.rename', { from: 'src/lib/a.ts', to: 'b.ts' });
    assert.equal(f.status, 'succeeded');
    writeFileSync(join(h.root, 'b.ts'), 'changed');
    const c = await h.call('fs.undo', { receipt_id: f.receipt_id });
    assert.equal(c.error?.code, 'undo_conflict');
    assert.deepEqual((c.error?.data as { changed: string[] }).changed, ['b.ts']);
  }));
