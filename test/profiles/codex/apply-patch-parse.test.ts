// parseApplyPatch on every case of the grammar (shared/toolsurf/codex/apply_patch.lark) and the
// original's leniency, and every parse error string of the facts, byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseApplyPatch, type ParseResult } from '../../../src/profiles/codex/apply-patch/parse.js';

function hunks(r: ParseResult): unknown {
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.patch.hunks.map((h) =>
    h.kind === 'update' ? { ...h, chunks: h.chunks.map((c) => ({ context: c.context, old: c.oldLines, new: c.newLines, eof: c.endOfFile })) } : h,
  );
}

function error(text: string): string {
  const r = parseApplyPatch(text);
  assert.equal(r.ok, false, 'expected a parse error');
  return r.ok ? '' : r.message;
}

const EXAMPLE = '*** Begin Patch\n*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch';
const EXAMPLE_HUNKS = [
  { kind: 'add', path: 'path/add.py', contents: 'abc\ndef\n' },
  { kind: 'delete', path: 'path/delete.py' },
  { kind: 'update', path: 'path/update.py', moveTo: 'path/update2.py', chunks: [{ context: 'def f():', old: ['    pass'], new: ['    return 123'], eof: false }] },
];

void test('add, delete, update with a move and an @@ line', () => {
  assert.deepEqual(hunks(parseApplyPatch(EXAMPLE)), EXAMPLE_HUNKS);
});

void test('lenient like the original: padded markers, a heredoc wrapper, CRLF lines, a trailing newline', () => {
  assert.deepEqual(hunks(parseApplyPatch('*** Begin Patch \n*** Add File: foo\n+hi\n *** End Patch')), [{ kind: 'add', path: 'foo', contents: 'hi\n' }]);
  for (const open of ['<<EOF', "<<'EOF'", '<<"EOF"']) assert.deepEqual(hunks(parseApplyPatch(`${open}\n${EXAMPLE}\nEOF\n`)), EXAMPLE_HUNKS);
  assert.deepEqual(hunks(parseApplyPatch(`${EXAMPLE.replace(/\n/g, '\r\n')}\r\n`)), EXAMPLE_HUNKS);
  assert.deepEqual(hunks(parseApplyPatch(`\n\n${EXAMPLE}\n\n`)), EXAMPLE_HUNKS);
  // A heredoc needs two lines of patch inside it, else the original's boundary error stands.
  assert.equal(error("<<'EOF'\n*** Begin Patch\nEOF"), "invalid patch: The first line of the patch must be '*** Begin Patch'");
});

void test('absolute and relative paths are both kept as written', () => {
  assert.deepEqual(hunks(parseApplyPatch('*** Begin Patch\n*** Delete File: /abs/dir/x.txt\n*** Add File: rel/y.txt\n+y\n*** End Patch')), [
    { kind: 'delete', path: '/abs/dir/x.txt' },
    { kind: 'add', path: 'rel/y.txt', contents: 'y\n' },
  ]);
});

void test('two @@ lines in a row are refused as the original refuses them (a chunk needs lines)', () => {
  assert.equal(
    error('*** Begin Patch\n*** Update File: f.py\n@@ class Foo:\n@@     def f(self):\n-        return 1\n+        return 2\n*** End Patch'),
    "invalid hunk at line 4, Unexpected line found in update hunk: '@@     def f(self):'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
  );
});

void test('chunks exactly as the original splits them', () => {
  const r = parseApplyPatch('*** Begin Patch\n*** Update File: f\n import foo\n+bar\n@@ def g():\n-    x\n+    y\n\n@@\n-last\n+LAST\n*** End of File\n*** Add File: other.py\n+content\n*** End Patch');
  assert.deepEqual(hunks(r), [
    {
      kind: 'update',
      path: 'f',
      moveTo: null,
      chunks: [
        { context: null, old: ['import foo'], new: ['import foo', 'bar'], eof: false },
        { context: 'def g():', old: ['    x', ''], new: ['    y', ''], eof: false },
        { context: null, old: ['last'], new: ['LAST'], eof: true },
      ],
    },
    { kind: 'add', path: 'other.py', contents: 'content\n' },
  ]);
  // Update followed by Add, a pure addition chunk.
  assert.deepEqual(hunks(parseApplyPatch('*** Begin Patch\n*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content\n*** End Patch')), [
    { kind: 'update', path: 'file.py', moveTo: null, chunks: [{ context: null, old: [], new: ['line'], eof: false }] },
    { kind: 'add', path: 'other.py', contents: 'content\n' },
  ]);
  // An empty patch parses (the apply step says "No files were modified.").
  assert.deepEqual(hunks(parseApplyPatch('*** Begin Patch\n*** End Patch')), []);
});

void test('every parse error string of the original, with its line number', () => {
  assert.equal(error('bad'), "invalid patch: The first line of the patch must be '*** Begin Patch'");
  assert.equal(error('*** Begin Patch\nbad'), "invalid patch: The last line of the patch must be '*** End Patch'");
  assert.equal(error(''), "invalid patch: The last line of the patch must be '*** End Patch'");
  assert.equal(error('*** Begin Patch'), "invalid patch: The last line of the patch must be '*** End Patch'");
  assert.equal(
    error('*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch'),
    "invalid hunk at line 2, '*** Frobnicate File: foo' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
  );
  assert.equal(error('*** Begin Patch\n*** Update File: test.py\n*** End Patch'), "invalid hunk at line 2, Update file hunk for path 'test.py' is empty");
  assert.equal(error('*** Begin Patch\n*** Add File: a\n+a\n*** Update File: test.py\n*** Move to: b.py\n*** End Patch'), "invalid hunk at line 4, Update file hunk for path 'test.py' is empty");
  assert.equal(
    error('*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\nbad line\n*** End Patch'),
    "invalid hunk at line 6, Expected update hunk to start with a @@ context marker, got: 'bad line'",
  );
  assert.equal(error('*** Begin Patch\n*** Update File: a\n@@\n*** End Patch'), 'invalid hunk at line 4, Update hunk does not contain any lines');
  assert.equal(error('*** Begin Patch\n*** Update File: a\n@@ ctx\n*** End of File\n*** End Patch'), 'invalid hunk at line 4, Update hunk does not contain any lines');
  assert.equal(
    error('*** Begin Patch\n*** Update File: a\n@@\nbad\n*** End Patch'),
    "invalid hunk at line 4, Unexpected line found in update hunk: 'bad'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)",
  );
});
