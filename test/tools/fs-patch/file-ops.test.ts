// fs.patch 1.2.0: files[] entries that create, delete or move a file (with or without edits),
// applied with the edits of the other entries as one all-or-nothing file set, undone as one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, snapshot, withHarness } from '../fs-write/harness.js';

interface PatchFile {
  path: string;
  status: string;
  from?: string;
  sha256: string | null;
}

function seed(root: string): void {
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src/edit.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(root, 'src/gone.txt'), 'obsolete\n');
  writeFileSync(join(root, 'src/old.txt'), 'alpha\nbeta\n');
}

const FOUR = [
  { path: 'src/new.txt', create: 'fresh\n' },
  { path: 'src/edit.txt', edits: [{ old: 'two', new: 'TWO' }] },
  { path: 'src/gone.txt', delete: true },
  { path: 'src/old.txt', move_to: 'lib/deep/moved.txt', edits: [{ old: 'beta', new: 'BETA' }] },
];

void test('create, edit, delete and move in one call are applied together and reported per file', () =>
  withHarness(async (h) => {
    seed(h.root);
    const r = await h.call('fs.patch', { files: FOUR });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(readFileSync(join(h.root, 'src/new.txt'), 'utf8'), 'fresh\n');
    assert.equal(readFileSync(join(h.root, 'src/edit.txt'), 'utf8'), 'one\nTWO\nthree\n');
    assert.equal(existsSync(join(h.root, 'src/gone.txt')), false);
    assert.equal(existsSync(join(h.root, 'src/old.txt')), false);
    assert.equal(readFileSync(join(h.root, 'lib/deep/moved.txt'), 'utf8'), 'alpha\nBETA\n');
    const result = r.result as { files: PatchFile[]; diff: string };
    assert.deepEqual(
      result.files.map((f) => [f.path, f.status, f.from ?? null]),
      [['src/new.txt', 'created', null], ['src/edit.txt', 'modified', null], ['src/gone.txt', 'deleted', null], ['lib/deep/moved.txt', 'moved', 'src/old.txt']],
    );
    assert.equal(result.files[3]?.sha256, sha256('alpha\nBETA\n'));
    assert.match(result.diff, /^diff --git a\/src\/old\.txt b\/lib\/deep\/moved\.txt\nrename from src\/old\.txt\nrename to lib\/deep\/moved\.txt\n--- a\/src\/old\.txt\n\+\+\+ b\/lib\/deep\/moved\.txt\n@@ -1,2 \+1,2 @@\n alpha\n-beta\n\+BETA\n/m);
    assert.match(result.diff, /^deleted file mode 100644\n--- a\/src\/gone\.txt\n\+\+\+ \/dev\/null\n@@ -1 \+0,0 @@\n-obsolete\n/m);
  }));

void test('undo of a patch with whole-file operations restores every file, and removes the made directories', () =>
  withHarness(async (h) => {
    seed(h.root);
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', { files: FOUR });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    const u = await h.call('fs.undo', { receipt_id: r.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('a refusal in the last entry leaves every file untouched', () =>
  withHarness(async (h) => {
    seed(h.root);
    writeFileSync(join(h.root, 'taken.txt'), 'already here\n');
    const before = snapshot(h.root);
    for (const [last, code] of [
      [{ path: 'taken.txt', create: 'clobber\n' }, 'already_exists'],
      [{ path: 'taken.txt', edits: [{ old: 'not there', new: 'x' }] }, 'no_match'],
      [{ path: 'missing.txt', delete: true }, 'not_found'],
      [{ path: 'taken.txt', delete: true, expected_sha256: sha256('stale\n') }, 'precondition_failed'],
    ] as const) {
      const r = await h.call('fs.patch', { files: [...FOUR, last] });
      assert.equal(r.status, 'failed');
      assert.equal(r.error?.code, code, JSON.stringify(r.error));
      assert.deepEqual(snapshot(h.root), before, `${code}: nothing written, no directory made`);
    }
  }));

void test('a move whose source cannot be removed at the point of effect restores the files already replaced', () =>
  withHarness(async (h) => {
    seed(h.root);
    mkdirSync(join(h.root, 'locked'));
    writeFileSync(join(h.root, 'locked/src.txt'), 'stuck\n');
    execFileSync('chattr', ['+i', join(h.root, 'locked')]);
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', { files: [FOUR[1], { path: 'locked/src.txt', move_to: 'free.txt' }] });
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'execution_failed', JSON.stringify(r.error));
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('create refuses an existing file unless overwrite binds it by digest or says "any"', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'f.txt'), 'v1\n');
    const plain = await h.call('fs.patch', { files: [{ path: 'f.txt', create: 'v2\n' }] });
    assert.equal(plain.error?.code, 'already_exists');
    const stale = await h.call('fs.patch', { files: [{ path: 'f.txt', create: 'v2\n', overwrite: true, expected_sha256: sha256('v0\n') }] });
    assert.equal(stale.error?.code, 'precondition_failed');
    assert.equal((stale.error?.data as { reason: string }).reason, 'stale_sha256');
    const unbound = await h.call('fs.patch', { files: [{ path: 'f.txt', create: 'v2\n', overwrite: true }] });
    assert.equal(unbound.error?.code, 'invalid_arguments');
    assert.equal(readFileSync(join(h.root, 'f.txt'), 'utf8'), 'v1\n');
    const bound = await h.call('fs.patch', { files: [{ path: 'f.txt', create: 'v2\n', overwrite: true, expected_sha256: sha256('v1\n') }] });
    assert.equal(bound.status, 'succeeded', JSON.stringify(bound.error));
    assert.equal((bound.result as { files: PatchFile[] }).files[0]?.status, 'modified');
    const any = await h.call('fs.patch', { files: [{ path: 'f.txt', create: 'v3\n', overwrite: 'any' }] });
    assert.equal(any.status, 'succeeded', JSON.stringify(any.error));
    assert.equal(readFileSync(join(h.root, 'f.txt'), 'utf8'), 'v3\n');
  }));

void test('delete refuses a directory; a move refuses an existing destination unless overwrite is "any", and its own path', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, 'dir'));
    writeFileSync(join(h.root, 'dir/x.txt'), 'x\n');
    writeFileSync(join(h.root, 'a.txt'), 'a\n');
    writeFileSync(join(h.root, 'b.txt'), 'b\n');
    const before = snapshot(h.root);
    const dir = await h.call('fs.patch', { files: [{ path: 'dir', delete: true }] });
    assert.equal(dir.error?.code, 'invalid_resource');
    assert.equal((dir.error?.data as { kind: string }).kind, 'directory');
    const onto = await h.call('fs.patch', { files: [{ path: 'a.txt', move_to: 'b.txt' }] });
    assert.equal(onto.error?.code, 'already_exists');
    const ontoDir = await h.call('fs.patch', { files: [{ path: 'a.txt', move_to: 'dir' }] });
    assert.equal(ontoDir.error?.code, 'invalid_resource');
    const self = await h.call('fs.patch', { files: [{ path: 'a.txt', move_to: './a.txt' }] });
    assert.equal(self.error?.code, 'invalid_resource');
    const mixed = await h.call('fs.patch', { files: [{ path: 'a.txt', delete: true, create: 'x' }] });
    assert.equal(mixed.error?.code, 'invalid_arguments');
    const twice = await h.call('fs.patch', { files: [{ path: 'a.txt', move_to: 'c.txt' }, { path: 'c.txt', create: 'c\n' }] });
    assert.equal(twice.error?.code, 'invalid_arguments');
    assert.deepEqual(snapshot(h.root), before);
    const replace = await h.call('fs.patch', { files: [{ path: 'a.txt', move_to: 'b.txt', overwrite: 'any' }] });
    assert.equal(replace.status, 'succeeded', JSON.stringify(replace.error));
    assert.equal(readFileSync(join(h.root, 'b.txt'), 'utf8'), 'a\n');
    assert.equal(existsSync(join(h.root, 'a.txt')), false);
    const undo = await h.call('fs.undo', { receipt_id: replace.receipt_id });
    assert.equal(undo.status, 'succeeded', JSON.stringify(undo.error));
    assert.deepEqual(snapshot(h.root), before, 'the overwritten destination comes back too');
  }));

void test('a move without edits keeps bytes that are not text', () =>
  withHarness(async (h) => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10]);
    writeFileSync(join(h.root, 'blob.bin'), bytes);
    const r = await h.call('fs.patch', { files: [{ path: 'blob.bin', move_to: 'out/blob.bin', expected_sha256: sha256(bytes) }] });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.deepEqual(readFileSync(join(h.root, 'out/blob.bin')), bytes);
    assert.equal((r.result as { files: PatchFile[] }).files[0]?.status, 'moved');
  }));

void test('a created file is bounded by its UTF-8 bytes, like fs.write: limit_exceeded, nothing written', () =>
  withHarness(async (h) => {
    const r = await h.call('fs.patch', { files: [{ path: 'big.txt', create: '\u00e9'.repeat(4 * 1024 * 1024 + 1) }] });
    assert.equal(r.error?.code, 'limit_exceeded', JSON.stringify(r.error?.message));
    assert.equal(existsSync(join(h.root, 'big.txt')), false);
  }));
