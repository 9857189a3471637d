// Issue 10 items 4, 19, 20: set-id bits are never written; overlapping matches are ambiguous;
// an edit that changes nothing is refused rather than rewriting the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { snapshot, withHarness } from '../fs-write/harness.js';

const modeOf = (p: string): number => statSync(p).mode & 0o7777;

void test('a unified diff with new file mode 104755 is refused and creates nothing', () =>
  withHarness(async (h) => {
    for (const mode of ['104755', '102755', '101777', '100777', '100600']) {
      const diff = `diff --git a/x b/x\nnew file mode ${mode}\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+#!/bin/sh\n`;
      const r = await h.call('fs.patch', { unified_diff: diff });
      assert.equal(r.status, 'failed', mode);
      assert.equal(r.error?.code, 'invalid_arguments', `${mode}: ${JSON.stringify(r.error)}`);
      assert.equal(existsSync(join(h.root, 'x')), false);
    }
    const link = await h.call('fs.patch', { unified_diff: 'diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n' });
    assert.equal(link.error?.code, 'unsupported');
    const ok = await h.call('fs.patch', { unified_diff: 'diff --git a/run b/run\nnew file mode 100755\n--- /dev/null\n+++ b/run\n@@ -0,0 +1 @@\n+#!/bin/sh\n' });
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.equal(modeOf(join(h.root, 'run')), 0o755);
  }));

void test('every write path strips set-id and sticky bits: write, patch (edits and diff), undo of both, undo of a tree delete', () =>
  withHarness(async (h) => {
    const p = (n: string): string => join(h.root, n);
    for (const n of ['w', 'e', 'd']) {
      writeFileSync(p(n), 'echo one\n');
      chmodSync(p(n), 0o6755);
    }
    assert.equal(modeOf(p('w')), 0o6755, 'the fixture can make set-id files');

    const w = await h.call('fs.write', { path: 'w', content: '#!/bin/sh\nid\n', mode: 'create_or_replace' });
    assert.equal(w.status, 'succeeded', JSON.stringify(w.error));
    assert.equal(modeOf(p('w')), 0o755, 'fs.write kept only the permission bits');
    assert.equal((w.result as { mode: string }).mode, '0755');

    const e = await h.call('fs.patch', { files: [{ path: 'e', edits: [{ old: 'one', new: 'two' }] }] });
    assert.equal(e.status, 'succeeded', JSON.stringify(e.error));
    assert.equal(modeOf(p('e')), 0o755);

    const d = await h.call('fs.patch', { unified_diff: 'diff --git a/d b/d\n--- a/d\n+++ b/d\n@@ -1 +1 @@\n-echo one\n+echo three\n' });
    assert.equal(d.status, 'succeeded', JSON.stringify(d.error));
    assert.equal(modeOf(p('d')), 0o755);

    // Undo puts the preimage back: its bytes, but never its set-id bits.
    for (const r of [w, e]) {
      const u = await h.call('fs.undo', { receipt_id: r.receipt_id });
      assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    }
    assert.equal(modeOf(p('w')), 0o755);
    assert.equal(modeOf(p('e')), 0o755);

    mkdirSync(p('tree'));
    writeFileSync(p('tree/s'), 'x\n');
    chmodSync(p('tree/s'), 0o4755);
    chmodSync(p('tree'), 0o3755);
    const del = await h.call('fs.delete', { path: 'tree', recursive: true });
    assert.equal(del.status, 'succeeded', JSON.stringify(del.error));
    const back = await h.call('fs.undo', { receipt_id: del.receipt_id });
    assert.equal(back.status, 'succeeded', JSON.stringify(back.error));
    assert.equal(modeOf(p('tree/s')), 0o755);
    assert.equal(modeOf(p('tree')), 0o755);
  }));

void test('overlapping matches are ambiguous: three `x = 1` lines and an edit of two of them', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.py'), 'x = 1\nx = 1\nx = 1\n');
    const before = snapshot(h.root);
    for (const replace_all of [undefined, true]) {
      const r = await h.call('fs.patch', { files: [{ path: 'a.py', edits: [{ old: 'x = 1\nx = 1\n', new: 'y = 2\n', ...(replace_all ? { replace_all } : {}) }] }] });
      assert.equal(r.status, 'failed');
      assert.equal(r.error?.code, 'ambiguous_match', JSON.stringify(r.error));
      assert.deepEqual((r.error?.data as { lines: number[] }).lines, [1, 2]);
      assert.equal((r.error?.data as { overlapping: boolean }).overlapping, true);
    }
    assert.deepEqual(snapshot(h.root), before);
    // Not overlapping: replace_all still replaces every one.
    writeFileSync(join(h.root, 'b.py'), 'x = 1\ny\nx = 1\n');
    const ok = await h.call('fs.patch', { files: [{ path: 'b.py', edits: [{ old: 'x = 1', new: 'x = 2', replace_all: true }] }] });
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
  }));

void test('an edit with identical old and new text, or a patch that leaves the file as it is, is no_change and writes nothing', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), 'keep me\nand me\n');
    const ino = statSync(join(h.root, 'a.txt')).ino;
    const cases: Record<string, unknown>[] = [
      { files: [{ path: 'a.txt', edits: [{ old: 'keep me', new: 'keep me' }] }] },
      // (Edits refer to the text as read, so `keep→drop, drop→keep` is no longer a chain: see edits.test.ts.)
      { files: [{ path: 'a.txt', edits: [{ lines: '1', new: 'keep me\n', expect: 'keep me' }] }] },
      { unified_diff: 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-keep me\n+keep me\n' },
    ];
    for (const args of cases) {
      const r = await h.call('fs.patch', args);
      assert.equal(r.status, 'failed');
      assert.equal(r.error?.code, 'no_change', JSON.stringify(r.error));
      assert.equal((r.error?.data as { path: string }).path, 'a.txt');
    }
    assert.equal(statSync(join(h.root, 'a.txt')).ino, ino, 'the file was not rewritten');
    assert.equal(await h.rt.store.currentRevision(), 0);
  }));
