// Issue 12 item 5: the edits agents make. Line-range replace and insert-at-line bound to the
// file as read, a whitespace-tolerant match that says what it matched, and several edits of one
// file placed in the original text, all through runtime.call with real files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, snapshot, withHarness, type Harness } from '../fs-write/harness.js';

const TEN = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
type Data = Record<string, unknown>;
const read = (h: Harness, p: string): string => readFileSync(join(h.root, p), 'utf8');
const dataOf = (r: { error?: { data?: unknown } | null }): Data => (r.error?.data ?? {}) as Data;

void test('lines "a:b" replaces lines a..b of the file as read when expect matches; the result says where', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), TEN);
    const r = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ lines: '3:5', new: 'three\nfour-five\n', expect: 'line 3\nline 4\nline 5' }] }] });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(read(h, 'a.txt'), TEN.replace('line 3\nline 4\nline 5\n', 'three\nfour-five\n'));
    const f = (r.result as { files: { edits: unknown[] }[] }).files[0];
    assert.deepEqual(f?.edits, [{ edit: 1, match: 'lines', start_line: 3, end_line: 5, occurrences: 1 }]);
    assert.match((r.result as { diff: string }).diff, /-line 3\n-line 4\n-line 5\n\+three\n\+four-five\n/);
  }));

void test('a line edit bound by expected_sha256 needs no expect; empty new deletes the lines', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), TEN);
    const r = await h.call('fs.patch', { files: [{ path: 'a.txt', expected_sha256: sha256(TEN), edits: [{ lines: '2:9', new: '' }] }] });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(read(h, 'a.txt'), 'line 1\nline 10\n');
  }));

void test('a stale line edit is precondition_failed naming the lines there now and where the expected text went; nothing written', () =>
  withHarness(async (h) => {
    // The agent read TEN; someone inserted two lines at the top since.
    writeFileSync(join(h.root, 'a.txt'), `new 1\nnew 2\n${TEN}`);
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ lines: '3:4', new: 'X\n', expect: 'line 3\nline 4\n' }] }] });
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'precondition_failed');
    const d = dataOf(r);
    assert.equal(d['reason'], 'stale_lines');
    assert.equal(d['current'], 'line 1\nline 2');
    assert.equal(d['expected'], 'line 3\nline 4\n');
    assert.deepEqual([d['start_line'], d['end_line'], d['line_count'], d['edit']], [3, 4, 12, 1]);
    const c = (d['candidates'] as { start_line: number; end_line: number; similarity: number }[])[0];
    assert.deepEqual([c?.start_line, c?.end_line, c?.similarity], [5, 6, 1]);
    assert.match(r.error?.message ?? '', /now at lines 5-6/);
    assert.match(r.error?.message ?? '', / {5}3\tline 1\n {5}4\tline 2/);
    assert.deepEqual(snapshot(h.root), before);
    assert.equal(await h.rt.store.currentRevision(), 0);
  }));

void test('a line edit with neither expect nor expected_sha256 is refused with the current lines; a stale sha256 is refused first', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), TEN);
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ lines: '2', new: 'two\n' }] }] });
    assert.equal(r.error?.code, 'precondition_failed');
    assert.equal(dataOf(r)['reason'], 'unbound_line_edit');
    assert.equal(dataOf(r)['current'], 'line 2');
    const ins = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ insert_line: 4, new: 'x\n' }] }] });
    assert.equal(dataOf(ins)['reason'], 'unbound_line_edit');
    const stale = await h.call('fs.patch', { files: [{ path: 'a.txt', expected_sha256: sha256('other'), edits: [{ lines: '2', new: 'two\n' }] }] });
    assert.equal(dataOf(stale)['reason'], 'stale_sha256');
    const past = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ lines: '9:11', new: 'x\n', expect: 'line 9\nline 10\nline 11' }] }] });
    assert.equal(dataOf(past)['reason'], 'line_out_of_range');
    assert.equal(dataOf(past)['line_count'], 10);
    const reversed = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ lines: '5:4', new: 'x', expect: '' }] }] });
    assert.equal(reversed.error?.code, 'invalid_arguments');
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('insert_line n inserts after line n, 0 at the top (unbound: the top does not move), after the last line too', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), 'a\nb\n');
    const top = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ insert_line: 0, new: '# head' }] }] });
    assert.equal(top.status, 'succeeded', JSON.stringify(top.error));
    assert.equal(read(h, 'a.txt'), '# head\na\nb\n');
    const mid = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ insert_line: 2, new: 'x\ny\n', expect: 'a' }, { insert_line: 3, new: 'end', expect: 'b\n' }] }] });
    assert.equal(mid.status, 'succeeded', JSON.stringify(mid.error));
    assert.equal(read(h, 'a.txt'), '# head\na\nx\ny\nb\nend\n');
    const wrong = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: [{ insert_line: 2, new: 'z', expect: 'b' }] }] });
    assert.equal(dataOf(wrong)['reason'], 'stale_lines');
    assert.equal(dataOf(wrong)['current'], 'a');
  }));

void test('several edits of one file refer to the original: line numbers are not shifted by earlier edits, order does not matter', () =>
  withHarness(async (h) => {
    const edits = [
      { lines: '2', new: 'two\ntwo and a half\n', expect: 'line 2' },
      { insert_line: 5, new: 'after five', expect: 'line 5' },
      { old: 'line 8', new: 'eight' },
      { lines: '9:10', new: '', expect: 'line 9\nline 10' },
    ];
    const want = 'line 1\ntwo\ntwo and a half\nline 3\nline 4\nline 5\nafter five\nline 6\nline 7\neight\n';
    for (const order of [edits, [...edits].reverse()]) {
      writeFileSync(join(h.root, 'a.txt'), TEN);
      const r = await h.call('fs.patch', { files: [{ path: 'a.txt', edits: order }] });
      assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
      assert.equal(read(h, 'a.txt'), want);
    }
    // An old/new pair that only matches after an earlier edit is no chain: its old text is not in the original.
    writeFileSync(join(h.root, 'b.txt'), 'keep me\n');
    const chain = await h.call('fs.patch', { files: [{ path: 'b.txt', edits: [{ old: 'keep', new: 'drop' }, { old: 'drop', new: 'keep' }] }] });
    assert.equal(chain.error?.code, 'no_match');
    assert.equal(dataOf(chain)['edit'], 2);
  }));

void test('overlapping edits are overlapping_edits naming both and their lines; nothing written', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), TEN);
    const before = snapshot(h.root);
    const cases: [unknown[], [number, number], [[number, number], [number, number]]][] = [
      [[{ lines: '2:4', new: 'x', expect: 'line 2\nline 3\nline 4' }, { old: 'line 4\nline 5', new: 'y' }], [1, 2], [[2, 4], [4, 5]]],
      [[{ old: 'line 7', new: 'seven' }, { lines: '6:7', new: '', expect: 'line 6\nline 7' }], [1, 2], [[7, 7], [6, 7]]],
      [[{ insert_line: 3, new: 'p', expect: 'line 3' }, { insert_line: 3, new: 'q', expect: 'line 3' }], [1, 2], [[3, 3], [3, 3]]],
      [[{ old: 'ne 3\nli', new: 'z' }, { insert_line: 3, new: 'q', expect: 'line 3' }], [1, 2], [[3, 4], [3, 3]]],
    ];
    for (const [edits, which, lines] of cases) {
      const r = await h.call('fs.patch', { files: [{ path: 'a.txt', edits }] });
      assert.equal(r.error?.code, 'overlapping_edits', JSON.stringify(r.error));
      assert.deepEqual(dataOf(r)['edits'], which);
      assert.deepEqual(dataOf(r)['lines'], lines);
    }
    assert.deepEqual(snapshot(h.root), before);
    assert.equal(await h.rt.store.currentRevision(), 0);
    // Touching is not overlapping: an insert right before a replaced range, or after it.
    const ok = await h.call('fs.patch', {
      files: [{ path: 'a.txt', edits: [{ insert_line: 1, new: 'before 2', expect: 'line 1' }, { lines: '2', new: 'two', expect: 'line 2' }, { insert_line: 2, new: 'after 2', expect: 'line 2' }] }],
    });
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.match(read(h, 'a.txt'), /^line 1\nbefore 2\ntwo\nafter 2\nline 3\n/);
    assert.notDeepEqual(snapshot(h.root), before);
  }));

void test('match "whitespace" ignores indentation and trailing spaces, reports the text it matched, re-indents new', () =>
  withHarness(async (h) => {
    const src = 'class A:\n    def f(self):  \n        return 1\n\n    def g(self):\n        return 2\n';
    writeFileSync(join(h.root, 'a.py'), src);
    const before = snapshot(h.root);
    // The agent lost the indentation (as a model often does when it copies from a rendering).
    const exact = await h.call('fs.patch', { files: [{ path: 'a.py', edits: [{ old: 'def f(self):\n    return 1\n', new: 'def f(self):\n    return 10\n' }] }] });
    assert.equal(exact.error?.code, 'no_match', 'exact is the default');
    const r = await h.call('fs.patch', { files: [{ path: 'a.py', edits: [{ old: 'def f(self):\n    return 1\n', new: 'def f(self):\n    return 10\n', match: 'whitespace' }] }] });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(read(h, 'a.py'), src.replace('    def f(self):  \n        return 1\n', '    def f(self):\n        return 10\n'));
    const f = (r.result as { files: { edits: Data[] }[] }).files[0];
    assert.deepEqual(f?.edits, [{ edit: 1, match: 'whitespace', start_line: 2, end_line: 3, occurrences: 1, matched: '    def f(self):  \n        return 1\n', reindented: true }]);
    // Ambiguity is still refused, with every candidate line.
    writeFileSync(join(h.root, 'b.py'), 'if a:\n    x = 1\nif b:\n  x = 1  \n');
    const bBefore = snapshot(h.root)['b.py'];
    const amb = await h.call('fs.patch', { files: [{ path: 'b.py', edits: [{ old: 'x = 1', new: 'x = 2', match: 'whitespace' }] }] });
    assert.equal(amb.error?.code, 'ambiguous_match');
    assert.deepEqual(dataOf(amb)['lines'], [2, 4]);
    assert.match(amb.error?.message ?? '', /ignoring whitespace/);
    const miss = await h.call('fs.patch', { files: [{ path: 'b.py', edits: [{ old: 'y = 1', new: 'y = 2', match: 'whitespace' }] }] });
    assert.equal(miss.error?.code, 'no_match');
    assert.equal(snapshot(h.root)['b.py'], bBefore);
    assert.notEqual(snapshot(h.root)['a.py'], before['a.py']);
  }));

void test('CRLF files and files without a final newline keep their line endings through line edits; binary is refused', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'w.txt'), 'a\r\nb\r\nc\r\n');
    const r = await h.call('fs.patch', { files: [{ path: 'w.txt', edits: [{ lines: '2', new: 'B1\nB2\n', expect: 'b' }, { insert_line: 3, new: 'd', expect: 'c' }] }] });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(read(h, 'w.txt'), 'a\r\nB1\r\nB2\r\nc\r\nd\r\n');
    const ws = await h.call('fs.patch', { files: [{ path: 'w.txt', edits: [{ old: 'B1\n  B2', new: 'b', match: 'whitespace' }] }] });
    assert.equal(ws.status, 'succeeded', JSON.stringify(ws.error));
    assert.equal(read(h, 'w.txt'), 'a\r\nb\r\nc\r\nd\r\n');

    writeFileSync(join(h.root, 'n.txt'), 'x\ny\nz');
    const last = await h.call('fs.patch', { files: [{ path: 'n.txt', edits: [{ lines: '3', new: 'Z\n', expect: 'z' }] }] });
    assert.equal(last.status, 'succeeded', JSON.stringify(last.error));
    assert.equal(read(h, 'n.txt'), 'x\ny\nZ');
    const after = await h.call('fs.patch', { files: [{ path: 'n.txt', edits: [{ insert_line: 3, new: 'w\n', expect: 'Z' }] }] });
    assert.equal(read(h, 'n.txt'), 'x\ny\nZ\nw', JSON.stringify(after.error));
    const del = await h.call('fs.patch', { files: [{ path: 'n.txt', edits: [{ lines: '3:4', new: '', expect: 'Z\nw' }] }] });
    assert.equal(del.status, 'succeeded', JSON.stringify(del.error));
    assert.equal(read(h, 'n.txt'), 'x\ny');
    writeFileSync(join(h.root, 'm.txt'), 'p\r\nq');
    const crlfEnd = await h.call('fs.patch', { files: [{ path: 'm.txt', edits: [{ insert_line: 2, new: 'r', expect: 'q' }] }] });
    assert.equal(crlfEnd.status, 'succeeded', JSON.stringify(crlfEnd.error));
    assert.equal(read(h, 'm.txt'), 'p\r\nq\r\nr');

    writeFileSync(join(h.root, 'bin'), Buffer.from([0x61, 0x00, 0x0a, 0x62, 0x0a]));
    const bin = await h.call('fs.patch', { files: [{ path: 'bin', edits: [{ lines: '1', new: 'x', expect: 'a' }] }] });
    assert.equal(bin.error?.code, 'unsupported');
    assert.equal(dataOf(bin)['reason'], 'binary');
  }));

void test('fs.undo restores a line edit of several files at once, byte for byte, and the redo is undoable', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), TEN);
    writeFileSync(join(h.root, 'b.txt'), 'x\r\ny');
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', {
      files: [
        { path: 'a.txt', edits: [{ lines: '1:2', new: 'one', expect: 'line 1\nline 2' }, { old: '  line 5', new: 'five', match: 'whitespace' }] },
        { path: 'b.txt', expected_sha256: sha256('x\r\ny'), edits: [{ insert_line: 0, new: 'top' }] },
      ],
    });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    const ino = statSync(join(h.root, 'a.txt')).ino;
    const u = await h.call('fs.undo', { receipt_id: r.receipt_id });
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(snapshot(h.root), before);
    assert.notEqual(statSync(join(h.root, 'a.txt')).ino, ino);
    const redo = await h.call('fs.undo', { receipt_id: u.receipt_id });
    assert.equal(redo.status, 'succeeded', JSON.stringify(redo.error));
    assert.equal(read(h, 'a.txt'), 'one\nline 3\nline 4\nfive\nline 6\nline 7\nline 8\nline 9\nline 10\n');
    assert.equal(read(h, 'b.txt'), 'top\r\nx\r\ny');
  }));
