import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, snapshot, withHarness } from '../fs-write/harness.js';

void test('undo of a patch restores exact bytes and modes, and is itself a receipt', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.sh'), '#!/bin/sh\necho a\n');
    chmodSync(join(h.root, 'a.sh'), 0o751);
    writeFileSync(join(h.root, 'b.txt'), 'x\r\ny\r\n');
    const before = snapshot(h.root);
    const p = await h.call('fs.patch', { files: [{ path: 'a.sh', edits: [{ old: 'echo a', new: 'echo A' }] }, { path: 'b.txt', edits: [{ old: 'y', new: 'z' }] }] });
    assert.equal(p.status, 'succeeded', JSON.stringify(p.error));
    assert.notDeepEqual(snapshot(h.root), before);
    const u = await h.call('fs.undo', { receipt_id: p.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(snapshot(h.root), before);
    assert.equal(statSync(join(h.root, 'a.sh')).mode & 0o7777, 0o751);
    assert.match(u.receipt_id, /^rcpt_/);
    assert.notEqual(u.receipt_id, p.receipt_id);
    assert.deepEqual((u.result as { restored: string[] }).restored.sort(), ['a.sh', 'b.txt']);
    // The undo can be undone in turn (redo).
    const redo = await h.call('fs.undo', { receipt_id: u.receipt_id });
    assert.equal(redo.status, 'succeeded', JSON.stringify(redo.error));
    assert.equal(readFileSync(join(h.root, 'a.sh'), 'utf8'), '#!/bin/sh\necho A\n');
  }));

void test('undo refuses with undo_conflict naming the files changed since, and changes nothing', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), 'a\n');
    writeFileSync(join(h.root, 'b.txt'), 'b\n');
    const p = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ old: 'a', new: 'A' }] }, { path: 'b.txt', edits: [{ old: 'b', new: 'B' }] }] });
    assert.equal(p.status, 'succeeded');
    writeFileSync(join(h.root, 'b.txt'), 'B edited later\n');
    const before = snapshot(h.root);
    const u = await h.call('fs.undo', { receipt_id: p.receipt_id });
    assert.equal(u.status, 'failed');
    assert.equal(u.error?.code, 'undo_conflict');
    assert.deepEqual((u.error?.data as { changed: string[] }).changed, ['b.txt']);
    const c = (u.error?.data as { conflicts: { expected_sha256: string; actual_sha256: string }[] }).conflicts[0];
    assert.equal(c?.expected_sha256, sha256('B\n'));
    assert.equal(c?.actual_sha256, sha256('B edited later\n'));
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('undo of a create removes the file and the directories it made; undo of a delete brings the file back', () =>
  withHarness(async (h) => {
    const w = await h.call('fs.write', { path: 'x/y/new.txt', content: 'n', create_parents: true });
    assert.equal(w.status, 'succeeded');
    const u = await h.call('fs.undo', { receipt_id: w.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.equal(existsSync(join(h.root, 'x')), false);

    mkdirSync(join(h.root, 'k'));
    writeFileSync(join(h.root, 'k/f.txt'), 'keep me');
    chmodSync(join(h.root, 'k/f.txt'), 0o600);
    const before = snapshot(h.root);
    const d = await h.call('fs.delete', { path: 'k/f.txt' });
    assert.equal(d.status, 'succeeded');
    const back = await h.call('fs.undo', { receipt_id: d.receipt_id });
    assert.equal(back.status, 'succeeded', JSON.stringify(back.error));
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('undo refuses receipts that are not undoable mutations', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), 'a');
    const read = await h.call('fs.read', { path: 'a.txt' });
    assert.equal((await h.call('fs.undo', { receipt_id: read.receipt_id })).error?.code, 'invalid_resource');
    const failed = await h.call('fs.write', { path: 'a.txt', content: 'b' });
    assert.equal(failed.error?.code, 'already_exists');
    assert.equal((await h.call('fs.undo', { receipt_id: failed.receipt_id })).error?.code, 'invalid_resource');
    assert.equal((await h.call('fs.undo', { receipt_id: 'rcpt_00000000000000000000000000000000' })).error?.code, 'not_found');
  }));

void test('undo of a unified diff that created and deleted files puts the tree back exactly', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'old.txt'), 'old\n');
    chmodSync(join(h.root, 'old.txt'), 0o640);
    const before = snapshot(h.root);
    const diff = [
      'diff --git a/old.txt b/old.txt',
      'deleted file mode 100640',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-old',
      'diff --git a/new/deep/file.sh b/new/deep/file.sh',
      'new file mode 100755',
      '--- /dev/null',
      '+++ b/new/deep/file.sh',
      '@@ -0,0 +1 @@',
      '+echo hi',
      '',
    ].join('\n');
    const p = await h.call('fs.patch', { unified_diff: diff });
    assert.equal(p.status, 'succeeded', JSON.stringify(p.error));
    assert.equal(statSync(join(h.root, 'new/deep/file.sh')).mode & 0o777, 0o755);
    assert.equal(existsSync(join(h.root, 'old.txt')), false);
    const u = await h.call('fs.undo', { receipt_id: p.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(snapshot(h.root), before);
  }));
