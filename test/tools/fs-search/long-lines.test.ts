// A line of a million matches: work in proportion to its length, not to its length times its
// matches. Found 2026-12-06 (issue 14): the first page of a 4 MiB line of the needle held the
// event loop for 75 s (the in-process scan looked for the line's end again from every hit), and a
// regex or case-insensitive search of a 1 MB such line ran past its 10 s timeout with nothing
// (ripgrep's 52 MB match record was joined and searched again from its start with each chunk;
// in multiline mode each submatch was placed by a walk from the record's start).
// The counts below are of work done, not of time: they hold on a slow machine as on a fast one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, write, type Harness } from './fixture.js';
import { joinedBytes } from '../../support/joined-bytes.js';
import { RecordSplitter } from '../../../src/resources/index.js';
import { literalHits } from '../../../src/tools/fs-search/engines/literal-scan.js';
import { PageBuilder } from '../../../src/tools/fs-search/page.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

/** `b` with its indexOf counting the bytes each call looked at (to its answer, or to the end). */
function counting(b: Buffer): { buf: Buffer; scanned: () => number } {
  let scanned = 0;
  const indexOf = b.indexOf.bind(b);
  Object.defineProperty(b, 'indexOf', {
    value: (v: string | number | Uint8Array, from = 0): number => {
      const at = indexOf(v, from);
      scanned += (at === -1 ? b.length : at) - from;
      return at;
    },
  });
  return { buf: b, scanned: () => scanned };
}

describe('a long line of many matches', () => {
  it('literalHits finds every hit of it, looking at each byte a bounded number of times', () => {
    const n = 100_000;
    const { buf, scanned } = counting(Buffer.from(`first line\n${'ab'.repeat(n)}\nlast ab\n`));
    const hits = literalHits(buf, Buffer.from('ab'));
    assert.equal(hits.length, n + 1);
    assert.deepEqual({ ...hits[0], text: hits[0]?.text.length }, { line: 2, column: 1, end_column: 3, text: 2 * n });
    assert.deepEqual({ ...hits[n - 1], text: hits[n - 1]?.text.length }, { line: 2, column: 2 * n - 1, end_column: 2 * n + 1, text: 2 * n });
    assert.deepEqual(hits[n], { line: 3, column: 6, end_column: 8, text: 'last ab' });
    // Each hit's search for the needle, and the newlines once: a few times the buffer. Looking
    // for the line's end from every hit was n²: 10^10 bytes here.
    assert.ok(scanned() <= 4 * buf.length, `looked at ${scanned()} bytes of ${buf.length}`);
  });

  it('RecordSplitter joins a record of many chunks once, and keeps no view of a chunk its caller reuses', async () => {
    const splitter = new RecordSplitter(10);
    const records: string[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    const big = 'x'.repeat(4 * 1024 * 1024);
    const stream = Buffer.from(`one\n${big}\nthree\nfour`);
    const { joined } = await joinedBytes(() => {
      for (let at = 0; at < stream.length; at += chunk.length) {
        const n = stream.copy(chunk, 0, at, at + chunk.length);
        splitter.push(chunk.subarray(0, n), (r) => void records.push(r.toString()));
        chunk.fill(0x3f); // the caller's buffer, reused for the next read
      }
    });
    assert.deepEqual(records.map((r) => (r === big ? 'big' : r)), ['one', 'big', 'three']);
    assert.equal(splitter.flush()?.toString(), 'four');
    // The 4 MiB record once (plus a short one across a chunk's edge); joining at each of its 64 chunks was 130 MiB.
    assert.ok(joined <= big.length + 64 * 1024, `joined ${joined} bytes for a record of ${big.length}`);
  });

  it('RecordSplitter shows the record begun so far, joined once per look, and drops the rest of it when told', () => {
    const splitter = new RecordSplitter(10);
    const records: string[] = [];
    const take = (r: Buffer): void => void records.push(r.toString());
    splitter.push(Buffer.from('one\nlong '), take);
    splitter.push(Buffer.from('record '), take);
    assert.equal(splitter.pendingBytes, 'long record '.length);
    assert.equal(splitter.pending().toString(), 'long record ');
    assert.equal(splitter.pending().toString(), 'long record ', 'a second look joins nothing more');
    splitter.push(Buffer.from('goes on'), take);
    assert.equal(splitter.pending().toString(), 'long record goes on');
    splitter.skipRest();
    assert.equal(splitter.pendingBytes, 0);
    splitter.push(Buffer.from(' and on'), take);
    splitter.push(Buffer.from(' to its end\ntwo\nthr'), take);
    assert.deepEqual(records, ['one', 'two']);
    assert.equal(splitter.flush()?.toString(), 'thr');
  });

  it("a page cuts the hits of one long line from one encoding of it, each around its own column", () => {
    const line = `${'é'.repeat(50_000)}${'a'.repeat(1_000_000)}`;
    const start = 100_000; // bytes: the 50,000 two-byte characters
    const hits = Array.from({ length: 300 }, (_, i) => ({ line: 1, column: start + 1 + i, end_column: start + 2 + i, text: line }));
    const page = new PageBuilder('matches', null, 200, 1024 * 1024, 0);
    const from = Buffer.from;
    let encoded = 0;
    Buffer.from = ((value: unknown, ...rest: unknown[]) => {
      if (value === line) encoded++;
      return (from as (...a: unknown[]) => Buffer)(value, ...rest);
    }) as typeof Buffer.from;
    try {
      assert.equal(page.addFile({ path: 'min.js', hits, count: hits.length }, { lines: () => null }), false);
    } finally {
      Buffer.from = from;
    }
    assert.equal(page.matches.length, 200);
    assert.equal(encoded, 1, 'the line was encoded once for the page, not once a hit');
    // Each cut still starts 60 bytes before its own column, on a character boundary, 240 bytes long.
    assert.equal(page.matches[0]?.text, `${'é'.repeat(30)}${'a'.repeat(180)}`);
    assert.equal(page.matches[199]?.text, 'a'.repeat(240));
  });

  describe('through fs.search', () => {
    let root: string;
    let h: Harness;
    before(async () => {
      root = mkdtempSync(join(tmpdir(), 'fs-search-long-'));
      write(root, 'min.js', `${'a'.repeat(1_000_000)}\n`);
      write(root, 'other.txt', 'a\n');
      h = await harness(root);
    });
    after(async () => {
      await h.close();
      rmSync(root, { recursive: true, force: true });
    });

    for (const [what, args] of [
      ['a case-sensitive literal (scanned in process)', { query: 'a' }],
      ['a case-insensitive literal (ripgrep)', { query: 'A', case_sensitive: false }],
      ['a regex (ripgrep)', { query: 'a+?', mode: 'regex' }],
      ['a multiline regex (ripgrep, each submatch placed in the record)', { query: 'a+?', mode: 'regex', multiline: true }],
    ] as const) {
      it(`${what}: its first page is the line's first 200 matches`, async () => {
        const r = await h.call({ ...args, max_results: 200, timeout_ms: 60_000 });
        assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
        const res = r.result as FsSearchResult;
        assert.equal(res.truncation_reason, 'max_results');
        assert.deepEqual(
          res.matches?.map((m) => [m.path, m.line, m.column]),
          Array.from({ length: 200 }, (_, i) => ['min.js', 1, i + 1]),
        );
      });
    }
  });
});
