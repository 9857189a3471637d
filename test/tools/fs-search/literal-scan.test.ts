// The first page of a case-sensitive literal, scanned in process (literal-scan.ts), against
// ripgrep itself over the same files: the same hits, cut at the same file boundary.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { write } from './fixture.js';
import { SYNC_READ_MAX, Workspace } from '../../../src/resources/index.js';
import { FileReader } from '../../../src/tools/fs-search/file-access.js';
import { RipgrepEngine } from '../../../src/tools/fs-search/engines/ripgrep.js';
import { IN_PROCESS_MAX_BYTES, scannable, scanLiterals } from '../../../src/tools/fs-search/engines/literal-scan.js';
import { comparePaths } from '../../../src/tools/fs-search/order.js';
import type { ContentQuery, SearchAnswer } from '../../../src/tools/fs-search/engines/types.js';
import { random } from '../../support/random.js';


/** Bytes a line-oriented literal search can trip on: CR, NUL, invalid UTF-8, a 2-byte character, runs of the needle's letters. */
const PIECES = ['a', 'b', 'ab', 'aab', 'é', '\n', '\r\n', '\r', '\0', '\xff', ' ', 'abab', '\n\n'].map((p) => Buffer.from(p, p === '\xff' ? 'latin1' : 'utf8'));

describe('fs.search literal scan in process', () => {
  let root: string;
  const files: string[] = [];
  const add = (path: string, content: string | Buffer): void => {
    write(root, path, content);
    files.push(path);
  };
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'fs-search-scan-'));
    const rnd = random(20261205);
    for (let i = 0; i < 300; i++) {
      const parts: Buffer[] = [];
      const n = Math.floor(rnd() * 80);
      for (let j = 0; j < n; j++) parts.push(PIECES[Math.floor(rnd() * PIECES.length)] as Buffer);
      add(`r/${String(i).padStart(3, '0')}.txt`, Buffer.concat(parts));
    }
    add('s/bom-utf8.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('ab x ab\r\nab\n')]));
    add('s/bom-utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('ab ab\nab\n', 'utf16le')]));
    add('s/empty.txt', '');
    add('s/end-no-newline.txt', 'x\nab');
    // Around the size read on this thread (and one byte past it, read on the thread pool).
    for (const size of [SYNC_READ_MAX - 1, SYNC_READ_MAX, SYNC_READ_MAX + 1]) add(`s/size-${size}.txt`, Buffer.concat([Buffer.alloc(size - 3, 'x\n'), Buffer.from('ab\n')]));
    // Larger than is held in process: searched by ripgrep, alone.
    add('s/zz-large.txt', Buffer.concat([Buffer.from('ab first\n'), Buffer.alloc(IN_PROCESS_MAX_BYTES, 'y\n'), Buffer.from('last ab\n')]));
    execFileSync('mkfifo', [join(root, 's/fifo')]);
    files.push('s/fifo');
    symlinkSync('/etc/passwd', join(root, 's/link'));
    files.push('s/link');
    files.sort(comparePaths); // the order engines are given files in
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  async function both(q: ContentQuery, stopAfter: number): Promise<{ here: SearchAnswer; rg: SearchAnswer }> {
    const ws = Workspace.open(root);
    const r1 = new FileReader(ws);
    const r2 = new FileReader(ws);
    try {
      const oracle = new RipgrepEngine('rg', ws.root, 1, undefined, false);
      const rg = await oracle.search(files, q, r2, new AbortController().signal, stopAfter);
      await oracle.close();
      const engine = new RipgrepEngine('rg', ws.root, 1);
      const here = await engine.search(files, q, r1, new AbortController().signal, stopAfter);
      await engine.close();
      return { here, rg };
    } finally {
      r1.close();
      r2.close();
      ws.close();
    }
  }

  it("finds what ripgrep finds, line by line, column by column, in every kind of file", async () => {
    for (const pattern of ['ab', 'a', 'aa', 'b\r', 'é', 'abab', ' ']) {
      const q = { kind: 'literal', pattern, caseSensitive: true, want: 'lines' } as const;
      assert.ok(scannable(q));
      const { here, rg } = await both(q, 1_000_000);
      assert.ok(rg.found.length > 10, `${JSON.stringify(pattern)} is found in many files`);
      assert.deepEqual(here, rg, JSON.stringify(pattern));
    }
  });

  it('a byte order mark and a large file are searched by ripgrep, with its answer', async () => {
    const q = { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'lines' } as const;
    const { here } = await both(q, 1_000_000);
    const of = (path: string) => here.found.find((f) => f.path === path);
    // ripgrep strips a UTF-8 mark (columns count from after it) and transcodes UTF-16.
    assert.deepEqual(of('s/bom-utf8.txt')?.hits.map((h) => [h.line, h.column, h.text]), [[1, 1, 'ab x ab'], [1, 6, 'ab x ab'], [2, 1, 'ab']]);
    assert.deepEqual(of('s/bom-utf16.txt')?.hits.map((h) => [h.line, h.column]), [[1, 1], [1, 4], [2, 1]]);
    assert.deepEqual(of('s/zz-large.txt')?.hits.map((h) => h.text), ['ab first', 'last ab']);
    assert.deepEqual(of(`s/size-${SYNC_READ_MAX + 1}.txt`)?.hits.map((h) => h.line), [SYNC_READ_MAX / 2 - 1 + 1]);
    for (const absent of ['s/fifo', 's/link', 's/empty.txt']) assert.equal(of(absent), undefined);
  });

  it('stops at the file boundary where the page is full, as ripgrep run by run does', async () => {
    const q = { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'lines' } as const;
    for (const stopAfter of [1, 2, 7, 50, 333]) {
      const { here, rg } = await both(q, stopAfter);
      assert.ok(here.searched < files.length, `stopAfter ${stopAfter} stops early`);
      assert.deepEqual(here, rg, `stopAfter ${stopAfter}`);
      assert.ok(here.found.reduce((n, f) => n + f.count, 0) >= stopAfter);
    }
    // A page filled exactly at the end of a file ends there.
    const { rg: whole } = await both(q, 1_000_000);
    for (const k of [1, 5, 20]) {
      const stopAfter = whole.found.slice(0, k).reduce((n, f) => n + f.count, 0);
      const { here, rg } = await both(q, stopAfter);
      assert.equal(here.found.length, k, `stopAfter ${stopAfter}`);
      assert.deepEqual(here, rg, `stopAfter ${stopAfter}`);
    }
  });

  it('lets the event loop run while it reads, and stops when its signal aborts', async () => {
    const ws = Workspace.open(root);
    const reader = new FileReader(ws);
    try {
      // 3 MiB in files small enough to be read on this thread: scanned in slices.
      const big = Array.from({ length: 50 }, (_, i) => `big/${String(i).padStart(2, '0')}.txt`);
      for (const path of big) write(root, path, Buffer.alloc(60 * 1024, 'no match here\n'));
      const q = { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'lines' } as const;
      const noDelegate = (): Promise<SearchAnswer> => Promise.reject(new Error('nothing here needs ripgrep'));
      let turns = 0;
      let ticking = true;
      const tick = (): void => {
        turns++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const all = await scanLiterals(big, q, reader, new AbortController().signal, 1, noDelegate);
      ticking = false;
      assert.deepEqual(all, { found: [], searched: big.length });
      assert.ok(turns >= 5, `the event loop ran ${turns} times during the scan`);
      // Aborted once the scan is under way: it stops with the signal's reason.
      const ac = new AbortController();
      setImmediate(() => ac.abort(new Error('stop now')));
      await assert.rejects(scanLiterals(big, q, reader, ac.signal, 1, noDelegate), /stop now/);
    } finally {
      reader.close();
      ws.close();
    }
  });

  it('leaves to ripgrep what the bytes alone do not decide', () => {
    const q = { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'lines' } as const;
    assert.equal(scannable({ ...q, caseSensitive: false }), false);
    assert.equal(scannable({ ...q, kind: 'regex' }), false);
    assert.equal(scannable({ ...q, pattern: 'a\nb' }), false);
    assert.equal(scannable({ ...q, pattern: 'a\0b' }), false);
    assert.equal(scannable({ ...q, pattern: 'a\ud800b' }), false);
    assert.equal(scannable({ ...q, pattern: 'a😀b' }), true);
  });
});
