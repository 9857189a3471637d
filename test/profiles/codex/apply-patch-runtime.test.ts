// Codex's apply_patch end to end on Toolgate's contracts: the patch text parsed, mapped onto ONE
// fs.patch call (toFsPatchArgs with the files' text, as the profile reads them), run through a
// real runtime over a temporary git workspace with a tool-call.v1 envelope, and the receipt
// rendered as the original's text. The cases are the original's fixtures named in the facts
// (shared/toolsurf/codex/apply_patch.json), including the two where Toolgate's contract differs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { envelope, tempDirs } from '../../support/fixtures.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import type { Receipt } from '../../../src/protocol/index.js';
import { parseApplyPatch } from '../../../src/profiles/codex/apply-patch/parse.js';
import { toFsPatchArgs, type FileText } from '../../../src/profiles/codex/apply-patch/map.js';
import { renderApplyPatchResult } from '../../../src/profiles/codex/apply-patch/render.js';
import { snapshot } from '../../tools/fs-write/harness.js';

interface Ws {
  readonly root: string;
  readonly rt: Runtime;
  write(path: string, text: string): void;
  read(path: string): string | null;
  /** Parse, map (with the files' text unless `withText` is false), call, render. */
  apply(patch: string, opts?: { withText?: boolean }): Promise<{ text: string; code: string | null; receipt: Receipt | null }>;
}

async function withWorkspace(fn: (w: Ws) => Promise<void>): Promise<void> {
  const d = tempDirs('tg-codex-patch');
  execFileSync('git', ['init', '-q', d.workspace]);
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state });
  let n = 0;
  const abs = (p: string): string => (isAbsolute(p) ? p : join(d.workspace, p));
  const fileText: FileText = (p) => (existsSync(abs(p)) ? readFileSync(abs(p), 'utf8') : null);
  const w: Ws = {
    root: d.workspace,
    rt,
    write: (p, text) => {
      mkdirSync(dirname(abs(p)), { recursive: true });
      writeFileSync(abs(p), text);
    },
    read: (p) => (existsSync(abs(p)) ? readFileSync(abs(p), 'utf8') : null),
    apply: async (patch, opts = {}) => {
      const parsed = parseApplyPatch(patch);
      if (!parsed.ok) return { text: parsed.message, code: 'invalid_arguments', receipt: null };
      const mapped = toFsPatchArgs(parsed.patch, opts.withText === false ? undefined : fileText);
      if (!mapped.ok) return { text: mapped.text, code: mapped.code, receipt: null };
      const receipt = await rt.call(envelope('fs.patch', { ...mapped.arguments }, { idempotency_key: `p${++n}` }));
      const shown = renderApplyPatchResult(receipt, parsed.patch);
      assert.equal(shown.isError, receipt.status !== 'succeeded');
      return { text: shown.text, code: shown.code, receipt };
    },
  };
  try {
    await fn(w);
  } finally {
    await rt.close();
    d.cleanup();
  }
}

const state = (w: Ws): Record<string, string> => {
  const s = snapshot(w.root);
  for (const k of Object.keys(s)) if (k === '.git' || k.startsWith('.git/')) delete s[k];
  return s;
};

void test('001 add file: created with its parents; the original success text', () =>
  withWorkspace(async (w) => {
    const r = await w.apply('*** Begin Patch\n*** Add File: nested/bar.md\n+This is a new file\n+\n+  indented\n*** End Patch\n');
    assert.equal(r.text, 'Success. Updated the following files:\nA nested/bar.md\n');
    assert.equal(w.read('nested/bar.md'), 'This is a new file\n\n  indented\n');
    assert.equal(r.receipt?.tool, 'fs.patch');
    assert.equal(r.receipt?.status, 'succeeded');
  }));

void test('002 add, update and delete in one patch: one call, listed A, then M, then D', () =>
  withWorkspace(async (w) => {
    w.write('delete.txt', 'obsolete\n');
    w.write('modify.txt', 'line1\nline2\n');
    const r = await w.apply('*** Begin Patch\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n line1\n-line2\n+changed\n*** Add File: nested/new.txt\n+created\n*** End Patch');
    assert.equal(r.text, 'Success. Updated the following files:\nA nested/new.txt\nM modify.txt\nD delete.txt\n');
    assert.equal(w.read('modify.txt'), 'line1\nchanged\n');
    assert.equal(w.read('delete.txt'), null);
    assert.equal(w.read('nested/new.txt'), 'created\n');
    // The whole patch is one receipt, undone as one.
    const undo = await w.rt.call(envelope('fs.undo', { receipt_id: r.receipt?.receipt_id }));
    assert.equal(undo.status, 'succeeded', JSON.stringify(undo.error));
    assert.equal(w.read('delete.txt'), 'obsolete\n');
    assert.equal(w.read('modify.txt'), 'line1\nline2\n');
    assert.equal(w.read('nested/new.txt'), null);
  }));

void test('003 update with context, several chunks in file order', () =>
  withWorkspace(async (w) => {
    w.write('multi.txt', 'line1\nline2\nline3\nline4\n');
    const r = await w.apply('*** Begin Patch\n*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n*** End Patch');
    assert.equal(r.text, 'Success. Updated the following files:\nM multi.txt\n');
    assert.equal(w.read('multi.txt'), 'line1\nchanged2\nline3\nchanged4\n');
  }));

const TWO_FUNCTIONS = 'def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n';

void test('@@ lines choose between equal blocks; without one the ambiguity is refused in the original words', () =>
  withWorkspace(async (w) => {
    w.write('f.py', TWO_FUNCTIONS);
    const before = state(w);
    const refused = await w.apply('*** Begin Patch\n*** Update File: f.py\n@@\n-    x = 1\n+    x = 2\n*** End Patch');
    assert.equal(refused.code, 'ambiguous_match');
    assert.equal(refused.text, 'Failed to find expected lines in f.py:\n    x = 1\nThese lines are at 2 places (lines 2, 6); add context lines or an @@ line to choose one.');
    assert.deepEqual(state(w), before, 'nothing written');
    const chosen = await w.apply('*** Begin Patch\n*** Update File: f.py\n@@ def b():\n-    x = 1\n+    x = 2\n*** End Patch');
    assert.equal(chosen.text, 'Success. Updated the following files:\nM f.py\n');
    assert.equal(w.read('f.py'), 'def a():\n    x = 1\n    return x\n\ndef b():\n    x = 2\n    return x\n');
    // The edit is bound to the lines the @@ line chose (their text is at two places in the file).
    const missing = await w.apply('*** Begin Patch\n*** Update File: f.py\n@@ def c():\n-    x = 1\n+    x = 3\n*** End Patch');
    assert.equal(missing.code, 'no_match');
    assert.equal(missing.text, "Failed to find context 'def c():' in f.py");
    // Without the file's text the mapping cannot use the @@ line: fs.patch refuses the ambiguity.
    w.write('f.py', TWO_FUNCTIONS);
    const blind = await w.apply('*** Begin Patch\n*** Update File: f.py\n@@ def b():\n-    x = 1\n+    x = 2\n*** End Patch', { withText: false });
    assert.equal(blind.code, 'ambiguous_match');
    assert.equal(blind.text, 'Failed to find expected lines in f.py:\n    x = 1\nThese lines are at 2 places (lines 2, 6); add context lines or an @@ line to choose one.');
  }));

void test('004 move to a new directory with an edit: the destination is M, the source is gone, undo brings it back', () =>
  withWorkspace(async (w) => {
    w.write('old/name.txt', 'old content\n');
    w.write('old/other.txt', 'unrelated file\n');
    const before = state(w);
    const r = await w.apply('*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n*** End Patch');
    assert.equal(r.text, 'Success. Updated the following files:\nM renamed/dir/name.txt\n');
    assert.equal(w.read('old/name.txt'), null);
    assert.equal(w.read('renamed/dir/name.txt'), 'new content\n');
    const undo = await w.rt.call(envelope('fs.undo', { receipt_id: r.receipt?.receipt_id }));
    assert.equal(undo.status, 'succeeded', JSON.stringify(undo.error));
    assert.deepEqual(state(w), before);
  }));

void test('010 a move onto an existing file is refused (the original overwrites it); nothing changes', () =>
  withWorkspace(async (w) => {
    w.write('old/name.txt', 'from\n');
    w.write('renamed/dir/name.txt', 'existing\n');
    const before = state(w);
    const r = await w.apply('*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new\n*** End Patch');
    assert.equal(r.code, 'already_exists');
    assert.equal(r.text, 'Failed to write file renamed/dir/name.txt: the file already exists, and *** Move to: does not replace a file here; move to a free path, or delete renamed/dir/name.txt first in another patch');
    assert.deepEqual(state(w), before);
  }));

void test('011 Add File over an existing file is refused (the original overwrites it); nothing changes', () =>
  withWorkspace(async (w) => {
    w.write('duplicate.txt', 'old content\n');
    const before = state(w);
    const r = await w.apply('*** Begin Patch\n*** Add File: duplicate.txt\n+new content\n*** End Patch');
    assert.equal(r.code, 'already_exists');
    assert.equal(r.text, 'Failed to write file duplicate.txt: the file already exists, and Add File does not replace a file here; change it with *** Update File: duplicate.txt');
    assert.deepEqual(state(w), before);
  }));

void test('012 delete of a directory, 007 delete of a missing file, 009 update of a missing file: the original strings', () =>
  withWorkspace(async (w) => {
    w.write('dir/foo.txt', 'x\n');
    const before = state(w);
    const dir = await w.apply('*** Begin Patch\n*** Delete File: dir\n*** End Patch');
    assert.deepEqual([dir.code, dir.text], ['invalid_resource', 'Failed to delete file dir: Is a directory (os error 21)']);
    const gone = await w.apply('*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch');
    assert.deepEqual([gone.code, gone.text], ['not_found', 'Failed to read missing.txt: No such file or directory (os error 2)']);
    const update = await w.apply('*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch');
    assert.deepEqual([update.code, update.text], ['not_found', 'Failed to read file to update missing.txt: No such file or directory (os error 2)']);
    const blind = await w.apply('*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch', { withText: false });
    assert.deepEqual([blind.code, blind.text], ['not_found', 'Failed to read file to update missing.txt: No such file or directory (os error 2)']);
    const empty = await w.apply('*** Begin Patch\n*** End Patch');
    assert.deepEqual([empty.code, empty.text], ['invalid_arguments', 'No files were modified.']);
    assert.deepEqual(state(w), before);
  }));

void test('015 a failure after a change that the original leaves on disk: nothing is written', () =>
  withWorkspace(async (w) => {
    w.write('present.txt', 'old\n');
    const before = state(w);
    // Refused where the mapping reads the file, before any call.
    const mapped = await w.apply('*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch');
    assert.equal(mapped.code, 'not_found');
    assert.equal(mapped.receipt, null);
    // Refused by fs.patch at normalize (no file text given to the mapping).
    const normalize = await w.apply('*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch', { withText: false });
    assert.equal(normalize.receipt?.error?.code, 'not_found');
    assert.equal(normalize.text, 'Failed to read file to update missing.txt: No such file or directory (os error 2)');
    // Refused by fs.patch while checking the files, after the add was planned.
    const execute = await w.apply('*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: present.txt\n@@\n-not there\n+new\n*** End Patch', { withText: false });
    assert.equal(execute.receipt?.error?.code, 'no_match');
    assert.equal(execute.text, 'Failed to find expected lines in present.txt:\nnot there');
    assert.equal(w.read('created.txt'), null, 'the original leaves created.txt behind (fixture 015)');
    assert.deepEqual(state(w), before);
  }));

void test('016 a chunk of added lines only is appended at the end of the file', () =>
  withWorkspace(async (w) => {
    w.write('input.txt', 'line1\nline2\n');
    const r = await w.apply('*** Begin Patch\n*** Update File: input.txt\n@@\n+added line 1\n+added line 2\n*** End Patch');
    assert.equal(r.text, 'Success. Updated the following files:\nM input.txt\n');
    assert.equal(w.read('input.txt'), 'line1\nline2\nadded line 1\nadded line 2\n');
  }));

void test('022 *** End of File anchors the chunk at the end, where the same lines are also earlier', () =>
  withWorkspace(async (w) => {
    w.write('tail.txt', 'first\nsecond\nfirst\nsecond\n');
    const r = await w.apply('*** Begin Patch\n*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch');
    assert.equal(r.text, 'Success. Updated the following files:\nM tail.txt\n');
    assert.equal(w.read('tail.txt'), 'first\nsecond\nfirst\nsecond updated\n');
  }));

void test('seek_sequence tolerance: trailing whitespace, indentation, Unicode punctuation; context lines keep the file text', () =>
  withWorkspace(async (w) => {
    w.write('ws.txt', 'keep  \nold\t\nend\n');
    const trailing = await w.apply('*** Begin Patch\n*** Update File: ws.txt\n@@\n keep\n-old\n+new\n end\n*** End Patch');
    assert.equal(trailing.text, 'Success. Updated the following files:\nM ws.txt\n');
    assert.equal(w.read('ws.txt'), 'keep  \nnew\nend\n', 'the context line keeps its trailing spaces');
    w.write('indent.py', 'if x:\n        call()\n');
    const indent = await w.apply('*** Begin Patch\n*** Update File: indent.py\n@@\n-    call()\n+        other()\n*** End Patch');
    assert.equal(indent.text, 'Success. Updated the following files:\nM indent.py\n');
    assert.equal(w.read('indent.py'), 'if x:\n        other()\n');
    w.write('u.txt', 'say(\u201chi\u201d) \u2013 done\n');
    const unicode = await w.apply('*** Begin Patch\n*** Update File: u.txt\n@@\n-say("hi") - done\n+say("bye") - done\n*** End Patch');
    assert.equal(unicode.text, 'Success. Updated the following files:\nM u.txt\n');
    assert.equal(w.read('u.txt'), 'say("bye") - done\n');
  }));

void test('a file changed between the mapping and the call is refused, not patched at a guess', () =>
  withWorkspace(async (w) => {
    w.write('f.txt', 'a\nb\nc\n');
    const parsed = parseApplyPatch('*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n*** End Patch');
    assert.ok(parsed.ok);
    const mapped = toFsPatchArgs(parsed.patch, () => readFileSync(join(w.root, 'f.txt'), 'utf8'));
    assert.ok(mapped.ok);
    w.write('f.txt', 'a\nbb\nc\n');
    const receipt = await w.rt.call(envelope('fs.patch', { ...mapped.arguments }, { idempotency_key: 'stale' }));
    assert.equal(receipt.error?.code, 'no_match');
    assert.equal(renderApplyPatchResult(receipt, parsed.patch).text, 'Failed to find expected lines in f.txt:\na\nb');
    assert.equal(w.read('f.txt'), 'a\nbb\nc\n');
    // An edit placed by its @@ line is a line range bound by the lines' text: stale lines are refused too.
    w.write('g.py', TWO_FUNCTIONS);
    const anchored = parseApplyPatch('*** Begin Patch\n*** Update File: g.py\n@@ def b():\n-    x = 1\n+    x = 2\n*** End Patch');
    assert.ok(anchored.ok);
    const placed = toFsPatchArgs(anchored.patch, () => TWO_FUNCTIONS);
    assert.ok(placed.ok);
    assert.deepEqual(placed.arguments.files[0], { path: 'g.py', edits: [{ lines: '6:6', new: '    x = 2\n', expect: '    x = 1\n' }] });
    w.write('g.py', TWO_FUNCTIONS.replace('def b():\n    x = 1', 'def b():\n    x = 5'));
    const stale = await w.rt.call(envelope('fs.patch', { ...placed.arguments }, { idempotency_key: 'stale-lines' }));
    assert.equal(stale.error?.code, 'precondition_failed');
    assert.equal(renderApplyPatchResult(stale, anchored.patch).text, 'Failed to find expected lines in g.py:\n    x = 1');
  }));

void test('a CRLF file: matched without its CRs, written back with them', () =>
  withWorkspace(async (w) => {
    w.write('win.txt', 'one\r\ntwo\r\nthree\r\n');
    const r = await w.apply('*** Begin Patch\r\n*** Update File: win.txt\r\n@@\r\n one\r\n-two\r\n+TWO\r\n+2\r\n*** End Patch\r\n');
    assert.equal(r.text, 'Success. Updated the following files:\nM win.txt\n');
    assert.equal(w.read('win.txt'), 'one\r\nTWO\r\n2\r\nthree\r\n');
  }));

void test('a heredoc-wrapped patch with an absolute path inside the workspace; 014: a file without a final newline keeps none', () =>
  withWorkspace(async (w) => {
    w.write('no_newline.txt', 'no newline at end');
    const abs = join(w.root, 'no_newline.txt');
    const r = await w.apply(`<<'EOF'\n*** Begin Patch\n*** Update File: ${abs}\n@@\n-no newline at end\n+first line\n+second line\n*** End Patch\nEOF\n`);
    assert.equal(r.text, `Success. Updated the following files:\nM ${abs}\n`);
    assert.equal(w.read('no_newline.txt'), 'first line\nsecond line', 'the original adds a final newline (fixture 014); Toolgate changes only the lines the patch names');
  }));
