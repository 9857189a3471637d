// context_lines: the lines around a match are found as they are asked for (a page that showed
// context from a 16 MB file of a million lines split all of it into strings: 280 ms), the same
// lines as splitting the whole file, and no line after a file's final newline.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, write, type Harness } from './fixture.js';
import { FileLines } from '../../../src/tools/fs-search/context-lines.js';
import type { FileReader } from '../../../src/tools/fs-search/file-access.js';
import { cutLine } from '../../../src/tools/fs-search/page.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';
import { random } from '../../support/random.js';

/** FileLines over one file's bytes, counting the bytes its newline searches looked at. */
function linesOf(bytes: Buffer): { lines: FileLines; scanned: () => number } {
  let scanned = 0;
  const indexOf = bytes.indexOf.bind(bytes);
  Object.defineProperty(bytes, 'indexOf', {
    value: (v: number, from = 0): number => {
      const at = indexOf(v, from);
      scanned += (at === -1 ? bytes.length : at + 1) - from;
      return at;
    },
  });
  const reader = { read: () => bytes } as unknown as FileReader;
  return { lines: new FileLines(reader), scanned: () => scanned };
}

/** The definition: the file split at every newline, a CR before it dropped, a final newline ending the last line. */
function split(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop(); // a lone CR after the final newline is a line
  return lines.map((l) => cutLine(l.endsWith('\r') ? l.slice(0, -1) : l));
}

describe('FileLines', () => {
  it('gives the lines of splitting the whole file, cut as result lines are', () => {
    const pieces = ['', 'a', '\r', 'é', '😀', ' x ', 'y'.repeat(300), 'é'.repeat(200)];
    const rand = random(7);
    const next = (n: number): number => Math.floor(rand() * n);
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: next(12) }, () => Array.from({ length: next(4) }, () => pieces[next(pieces.length)]).join(''));
      const text = lines.join(next(2) === 0 ? '\n' : '\r\n') + (next(2) === 0 ? '\n' : '');
      const want = split(text);
      const { lines: file } = linesOf(Buffer.from(text));
      for (let first = 0; first <= want.length + 2; first++) {
        for (const count of [0, 1, 3]) {
          const expected: string[] = [];
          for (let n = Math.max(1, first); n < first + count && n <= want.length; n++) expected.push(want[n - 1] as string);
          assert.deepEqual(file.lines('f', first, count), expected, `${JSON.stringify(text)} from ${first}, ${count}`);
        }
      }
    }
  });

  it('looks at the file only as far as the lines asked for', () => {
    const text = Array.from({ length: 1_000_000 }, (_, i) => `line ${i + 1}`).join('\n');
    const { lines, scanned } = linesOf(Buffer.from(text));
    assert.deepEqual(lines.lines('big.txt', 2, 3), ['line 2', 'line 3', 'line 4']);
    assert.ok(scanned() <= 40, `looked at ${scanned()} bytes`);
    assert.deepEqual(lines.lines('big.txt', 999_999, 5), ['line 999999', 'line 1000000']);
    assert.ok(scanned() <= text.length, `looked at ${scanned()} bytes of ${text.length}`);
  });
});

describe('context_lines through fs.search', () => {
  let root: string;
  let h: Harness;
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'fs-search-context-'));
    write(root, 'big.txt', `${Array.from({ length: 1_000_000 }, (_, i) => (i === 2 || i === 999_999 ? 'needle' : `line ${i + 1}`)).join('\n')}\n`);
    write(root, 'crlf.txt', 'one\r\nneedle\r\nthree\r\n');
    h = await harness(root);
  });
  after(async () => {
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('gives the lines around matches near both ends of a million-line file, and none after its last line', async () => {
    const r = await h.call({ query: 'needle', context_lines: 2, timeout_ms: 60_000 });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    const res = r.result as FsSearchResult;
    assert.deepEqual(
      res.matches?.map((m) => [m.path, m.line, m.context]),
      [
        ['big.txt', 3, { before: ['line 1', 'line 2'], after: ['line 4', 'line 5'] }],
        ['big.txt', 1_000_000, { before: ['line 999998', 'line 999999'], after: [] }],
        ['crlf.txt', 2, { before: ['one'], after: ['three'] }],
      ],
    );
  });
});
