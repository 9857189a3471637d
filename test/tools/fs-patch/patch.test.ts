import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, snapshot, withHarness, type Harness } from '../fs-write/harness.js';

function git(h: Harness, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: h.root, encoding: 'utf8' });
}

const body = (name: string): string => `export function ${name}(x: number): number {\n  const y = x + 1;\n  return y * 2;\n}\n`;

void test('an ambiguous edit writes nothing and names every matching line', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.ts'), 'let x = 1;\nfoo();\nlet y = 2;\nfoo();\n\nfoo();\n');
    writeFileSync(join(h.root, 'b.ts'), 'const b = 1;\n');
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', {
      files: [
        { path: 'b.ts', edits: [{ old: 'const b = 1;', new: 'const b = 2;' }] },
        { path: 'a.ts', edits: [{ old: 'foo();', new: 'bar();' }] },
      ],
    });
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'ambiguous_match');
    assert.deepEqual((r.error?.data as { lines: number[] }).lines, [2, 4, 6]);
    assert.deepEqual(snapshot(h.root), before);
    assert.equal(await h.rt.store.currentRevision(), 0);
  }));

void test('a missing edit is no_match with the closest candidate lines, and nothing is written', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.ts'), body('alpha') + body('beta'));
    writeFileSync(join(h.root, 'b.ts'), 'const b = 1;\n');
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', {
      files: [
        { path: 'b.ts', edits: [{ old: 'const b = 1;', new: 'const b = 2;' }] },
        { path: 'a.ts', edits: [{ old: '  const y = x + 2;\n  return y * 2;', new: '  return x;' }] },
      ],
    });
    assert.equal(r.error?.code, 'no_match');
    const cands = (r.error?.data as { candidates: { start_line: number; end_line: number; similarity: number; text: string }[] }).candidates;
    assert.equal(cands[0]?.start_line, 2);
    assert.equal(cands[0]?.end_line, 3);
    assert.match(cands[0]?.text ?? '', /const y = x \+ 1;/);
    assert.ok((cands[0]?.similarity ?? 0) > 0.8);
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('replace_all replaces every occurrence; edits apply in order; the result names sha256, hunks and revision', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.ts'), 'foo();\nx\nfoo();\n');
    const r = await h.call('fs.patch', {
      files: [{ path: 'a.ts', expected_sha256: sha256('foo();\nx\nfoo();\n'), edits: [{ old: 'foo', new: 'bar', replace_all: true }, { old: 'x', new: 'y' }] }],
    });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(readFileSync(join(h.root, 'a.ts'), 'utf8'), 'bar();\ny\nbar();\n');
    const res = r.result as { files: { path: string; sha256: string; hunks: number; status: string }[]; diff: string; revision: string };
    assert.deepEqual(res.files, [
      {
        path: 'a.ts',
        status: 'modified',
        sha256: sha256('bar();\ny\nbar();\n'),
        hunks: 1,
        // Where each exact edit landed (replace_all: its first occurrence, and how many there were).
        edits: [
          { edit: 1, match: 'exact', start_line: 1, end_line: 1, occurrences: 2 },
          { edit: 2, match: 'exact', start_line: 2, end_line: 2, occurrences: 1 },
        ],
      },
    ]);
    assert.equal(res.revision, 'r1');
    assert.equal(res.diff, 'diff --git a/a.ts b/a.ts\n--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n-foo();\n-x\n-foo();\n+bar();\n+y\n+bar();\n');
  }));

void test('a stale expected_sha256 is precondition_failed and nothing is written', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.ts'), 'one\n');
    writeFileSync(join(h.root, 'b.ts'), 'two\n');
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', {
      files: [
        { path: 'a.ts', edits: [{ old: 'one', new: '1' }] },
        { path: 'b.ts', expected_sha256: sha256('an older two\n'), edits: [{ old: 'two', new: '2' }] },
      ],
    });
    assert.equal(r.error?.code, 'precondition_failed');
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('a unified diff from git diff applies, its result diff matches, and git sees the same change', () =>
  withHarness(async (h) => {
    git(h, 'init', '-q');
    mkdirSync(join(h.root, 'src'));
    const lines = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(h.root, 'src/long.txt'), lines.join('\n') + '\n');
    writeFileSync(join(h.root, 'src/noeol.txt'), 'a\nb\nc');
    writeFileSync(join(h.root, 'gone.txt'), 'bye\n');
    writeFileSync(join(h.root, 'crlf.txt'), 'x\r\ny\r\n');
    git(h, 'add', '-A');
    git(h, 'commit', '-qm', 'base');
    const changed = [...lines];
    changed[2] = 'LINE 3';
    changed.splice(30, 1, 'line 31a', 'line 31b');
    changed.push('line 61');
    writeFileSync(join(h.root, 'src/long.txt'), changed.join('\n') + '\n');
    writeFileSync(join(h.root, 'src/noeol.txt'), 'a\nB\nc\nd');
    writeFileSync(join(h.root, 'crlf.txt'), 'x\r\nz\r\n');
    git(h, 'rm', '-q', 'gone.txt');
    mkdirSync(join(h.root, 'new/dir'), { recursive: true });
    writeFileSync(join(h.root, 'new/dir/file.txt'), 'fresh\n');
    git(h, 'add', '-A');
    const diff = git(h, 'diff', '--cached');
    const wanted = snapshot(h.root, 'src');
    git(h, 'reset', '-q', '--hard');
    execFileSync('rm', ['-rf', join(h.root, 'new')]);

    const r = await h.call('fs.patch', { unified_diff: diff });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.deepEqual(snapshot(h.root, 'src'), wanted);
    assert.equal(readFileSync(join(h.root, 'new/dir/file.txt'), 'utf8'), 'fresh\n');
    assert.equal(readFileSync(join(h.root, 'crlf.txt'), 'utf8'), 'x\r\nz\r\n');
    const res = r.result as { diff: string; files: { path: string; status: string; hunks: number }[] };
    const withoutIndex = (d: string): string => d.split('\n').filter((l) => !l.startsWith('index ')).join('\n');
    assert.equal(res.diff, withoutIndex(diff));
    assert.deepEqual(
      res.files.map((f) => [f.path, f.status, f.hunks]),
      [
        ['crlf.txt', 'modified', 1],
        ['gone.txt', 'deleted', 1],
        ['new/dir/file.txt', 'created', 1],
        ['src/long.txt', 'modified', 3],
        ['src/noeol.txt', 'modified', 1],
      ],
    );
    git(h, 'add', '-A');
    assert.equal(git(h, 'diff', '--cached'), diff);
  }));

void test('hunks whose lines moved are found at the nearest exact match; a hunk that matches nowhere is no_match', () =>
  withHarness(async (h) => {
    const lines = Array.from({ length: 20 }, (_, i) => `l${i + 1}`);
    writeFileSync(join(h.root, 'f.txt'), ['extra1', 'extra2', ...lines].join('\n') + '\n');
    const patch = 'diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -9,3 +9,3 @@\n l9\n-l10\n+L10\n l11\n';
    const r = await h.call('fs.patch', { unified_diff: patch });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.match(readFileSync(join(h.root, 'f.txt'), 'utf8'), /\nl9\nL10\nl11\n/);
    assert.match((r.result as { diff: string }).diff, /@@ -11,3 \+11,3 @@/);
    const before = snapshot(h.root);
    const miss = await h.call('fs.patch', { unified_diff: 'diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -3,3 +3,3 @@\n l3\n-l4x\n+l4\n l5\n' });
    assert.equal(miss.error?.code, 'no_match');
    assert.equal((miss.error?.data as { candidates: { start_line: number }[] }).candidates[0]?.start_line, 5);
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('a malformed diff is invalid_arguments; a rename in a diff is unsupported', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'f.txt'), 'a\n');
    const bad = await h.call('fs.patch', { unified_diff: '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n-a\n' });
    assert.equal(bad.error?.code, 'invalid_arguments');
    const ren = await h.call('fs.patch', { unified_diff: 'diff --git a/f.txt b/g.txt\nsimilarity index 100%\nrename from f.txt\nrename to g.txt\n' });
    assert.equal(ren.error?.code, 'unsupported');
  }));

void test('a patch cannot touch .git/ or a secret path', () =>
  withHarness(async (h) => {
    mkdirSync(join(h.root, '.git/hooks'), { recursive: true });
    writeFileSync(join(h.root, '.git/hooks/pre-commit'), '#!/bin/sh\n');
    writeFileSync(join(h.root, '.env'), 'A=1\n');
    const before = snapshot(h.root);
    const a = await h.call('fs.patch', { files: [{ path: '.git/hooks/pre-commit', edits: [{ old: '#!/bin/sh', new: '#!/bin/sh\nevil' }] }] });
    assert.equal(a.error?.code, 'policy_denied');
    const b = await h.call('fs.patch', { files: [{ path: '.env', edits: [{ old: 'A=1', new: 'A=2' }] }] });
    assert.equal(b.error?.code, 'policy_denied');
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('a patch never writes through a hard link, a parent link or a final link to outside', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.outside, 'shared.txt'), 'secret = 1\n');
    linkSync(join(h.outside, 'shared.txt'), join(h.root, 'hard.txt'));
    symlinkSync(h.outside, join(h.root, 'out'));
    symlinkSync(join(h.outside, 'shared.txt'), join(h.root, 'soft.txt'));
    const hard = await h.call('fs.patch', { files: [{ path: 'hard.txt', edits: [{ old: 'secret = 1', new: 'secret = 2' }] }] });
    assert.equal(hard.status, 'succeeded', JSON.stringify(hard.error));
    assert.equal(readFileSync(join(h.root, 'hard.txt'), 'utf8'), 'secret = 2\n');
    for (const path of ['out/shared.txt', 'soft.txt']) {
      const r = await h.call('fs.patch', { files: [{ path, edits: [{ old: 'secret = 1', new: 'secret = 3' }] }] });
      assert.notEqual(r.status, 'succeeded', path);
    }
    const viaDiff = await h.call('fs.patch', { unified_diff: 'diff --git a/out/new.txt b/out/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/out/new.txt\n@@ -0,0 +1 @@\n+pwned\n' });
    assert.equal(viaDiff.error?.code, 'path_escape');
    assert.equal(readFileSync(join(h.outside, 'shared.txt'), 'utf8'), 'secret = 1\n');
    assert.deepEqual(readdirSync(h.outside), ['shared.txt']);
  }));

void test('a diff to a file of 300,000 lines, and one that creates such a file, apply (no line is passed as an argument)', () =>
  withHarness(async (h) => {
    const n = 300_000;
    const lines = Array.from({ length: n }, (_, i) => `l${i}`);
    writeFileSync(join(h.root, 'big.txt'), `${lines.join('\n')}\n`);
    const change = await h.call('fs.patch', { unified_diff: `--- a/big.txt\n+++ b/big.txt\n@@ -${n - 1},2 +${n - 1},2 @@\n l${n - 2}\n-l${n - 1}\n+L${n - 1}\n` });
    assert.equal(change.status, 'succeeded', JSON.stringify(change.error));
    assert.equal(readFileSync(join(h.root, 'big.txt'), 'utf8'), `${[...lines.slice(0, -1), `L${n - 1}`].join('\n')}\n`);
    const create = await h.call('fs.patch', { unified_diff: `--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1,${n} @@\n${lines.map((l) => `+${l}`).join('\n')}\n` });
    assert.equal(create.status, 'succeeded', JSON.stringify(create.error));
    assert.equal(readFileSync(join(h.root, 'made.txt'), 'utf8'), `${lines.join('\n')}\n`);
  }));
