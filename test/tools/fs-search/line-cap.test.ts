// A page of matches reads a file only up to the matching lines it can use: the lines up to its
// cursor and one more result than it holds. Found 2026-12-06 (issue 14): the first page of 200
// results from a log of a million matching lines took 2.7 s with ripgrep (a JSON record for
// every line, all parsed) and 0.2 s of a held event loop in process (a hit object for every line).
// Every engine path is checked against the whole answer: pages still concatenate to it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, write, type Harness } from './fixture.js';
import { Workspace } from '../../../src/resources/index.js';
import { FileReader } from '../../../src/tools/fs-search/file-access.js';
import { parseMatchHead, RipgrepEngine } from '../../../src/tools/fs-search/engines/ripgrep.js';
import { execFileSync } from 'node:child_process';
import { literalHits, packHits, unpackHits } from '../../../src/tools/fs-search/engines/literal-scan.js';
import { JavaScriptEngine } from '../../../src/tools/fs-search/engines/javascript.js';
import { ScanWorkers } from '../../../src/tools/fs-search/engines/scan-workers.js';
import type { ContentQuery, LineHit } from '../../../src/tools/fs-search/engines/types.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

const LOG_LINES = 3_000;

/** How many distinct lines `hits` (in line order) are on. */
function linesHit(hits: readonly LineHit[]): number {
  return new Set(hits.map((h) => h.line)).size;
}

describe('a page of matches stops reading a file at the lines it can use', () => {
  let root: string;
  let h: Harness;
  before(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'fs-search-cap-')));
    // Two hits on most lines; a line without one every 7th.
    write(root, 'a/log.txt', Array.from({ length: LOG_LINES }, (_, i) => (i % 7 === 3 ? `ok ${i}` : `error ${i} Error`)).join('\n') + '\n');
    write(root, 'b/after.txt', 'one error\n');
    // A regex that matches the empty string on every line, and something only at the end.
    write(root, 'c/late.txt', `${'\n'.repeat(2_000)}xx\n`);
    h = await harness(root);
  });
  after(async () => {
    await h.close();
    rmSync(root, { recursive: true, force: true });
  });

  async function page(args: Record<string, unknown>): Promise<FsSearchResult> {
    const r = await h.call({ ...args, timeout_ms: 60_000 });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    return r.result as FsSearchResult;
  }

  for (const [what, args] of [
    ['a case-sensitive literal (scanned in process)', { query: 'rror' }],
    ['a case-insensitive literal (ripgrep)', { query: 'RROR', case_sensitive: false }],
    ['a regex (ripgrep)', { query: 'rr?or', mode: 'regex' }],
    ['a multiline regex (ripgrep)', { query: 'rr?or', mode: 'regex', multiline: true }],
  ] as const) {
    it(`${what}: pages of 200 and of 7 concatenate to the whole answer`, async () => {
      const whole = await page({ ...args, max_results: 10_000, max_bytes: 4 * 1024 * 1024 });
      assert.equal(whole.truncated, false);
      const where = (r: FsSearchResult): string[] => (r.matches ?? []).map((m) => `${m.path}:${m.line}:${m.column}`);
      assert.ok(where(whole).length > 4_000);
      for (const size of [200, 7]) {
        const pages = [await page({ ...args, max_results: size })];
        for (let last = pages[0]; last?.continuation; last = pages[pages.length - 1]) {
          pages.push(await page({ ...args, max_results: size, continuation: last.continuation }));
          if (size === 7 && pages.length === 40) break; // far enough into the log; the rest is the same
        }
        const joined = pages.flatMap(where);
        assert.deepEqual(joined, where(whole).slice(0, joined.length), `pages of ${size}`);
        if (size === 200) assert.equal(joined.length, where(whole).length);
      }
    });
  }

  it('a file whose capped lines give too few results is read again whole', async () => {
    // `x*` matches the empty string on each of the 2,000 empty lines (not results) before `xx`.
    const r = await page({ query: 'x*', mode: 'regex', include: ['c/**'], max_results: 5 });
    assert.deepEqual(r.matches?.map((m) => [m.path, m.line, m.column, m.end_column]), [['c/late.txt', 2_001, 1, 3]]);
  });

  it('each engine gives a capped file its first matching lines and says it is capped', async () => {
    const ws = Workspace.open(root);
    const pool = new ScanWorkers(1);
    try {
      const q = (over: Partial<ContentQuery>): ContentQuery => ({ kind: 'literal', pattern: 'error', caseSensitive: true, want: 'lines', ...over });
      const engines = [
        ['ripgrep', new RipgrepEngine('rg', ws.root, 2, undefined, false), q({ caseSensitive: false })],
        ['in process', new RipgrepEngine('rg', ws.root, 2, undefined, true, pool), q({})],
      ] as const;
      for (const [name, engine, query] of engines) {
        for (const stopAfter of [201, undefined]) {
          const reader = new FileReader(ws);
          const found = (await engine.search(['a/log.txt', 'b/after.txt'], query, reader, AbortSignal.timeout(60_000), stopAfter, { lines: 201, hits: Infinity })).found;
          reader.close();
          const [log, next] = found;
          assert.equal(log?.capped, true, `${name}, stopAfter ${stopAfter}`);
          assert.equal(log !== undefined && linesHit(log.hits), 201, `${name}, stopAfter ${stopAfter}`);
          assert.equal(log?.hits[0]?.line, 1);
          if (next !== undefined) assert.equal(next.capped, undefined, `${name}: a file of one line is not capped`);
        }
      }
    } finally {
      await pool.close();
      ws.close();
    }
  });

  it('worker threads send a line of many hits with its text once, not once a hit', async () => {
    // Sent as objects, each of 40,000 hits carried its own copy of the 80 KB line: 3.2 GB on
    // the way to the event loop (a larger line ended the process out of memory).
    const packed = packHits(literalHits(Buffer.from('ab ab\nx\nab\n'), Buffer.from('ab')));
    assert.deepEqual(packed.texts, ['ab ab', 'ab']);
    assert.deepEqual(unpackHits(packed), literalHits(Buffer.from('ab ab\nx\nab\n'), Buffer.from('ab')));
    write(root, 'e/min.js', `${'ab'.repeat(40_000)}\n`);
    const ws = Workspace.open(root);
    const pool = new ScanWorkers(1);
    const js = new JavaScriptEngine();
    try {
      const q: ContentQuery = { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'lines' };
      for (const [name, engine, query] of [
        ['the in-process engine on worker threads', new RipgrepEngine('rg', ws.root, 2, undefined, true, pool), q],
        ['the JavaScript engine, a literal', js, q],
        ['the JavaScript engine, a regex', js, { ...q, kind: 'regex', pattern: 'a(b)' }],
      ] as const) {
        const reader = new FileReader(ws);
        const before = process.memoryUsage().rss;
        const hits = (await engine.search(['e/min.js'], query, reader, AbortSignal.timeout(60_000))).found[0]?.hits ?? [];
        reader.close();
        assert.equal(hits.length, 40_000, name);
        assert.deepEqual([hits[39_999]?.column, hits[39_999]?.text.length], [79_999, 80_000], name);
        // Far under the 3.2 GB of a copy a hit (the line once, the hits' 16 bytes each, and what the heap keeps).
        assert.ok(process.memoryUsage().rss - before < 512 * 1024 * 1024, `${name}: ${process.memoryUsage().rss - before} bytes`);
      }
    } finally {
      await js.close();
      await pool.close();
      ws.close();
      rmSync(join(root, 'e'), { recursive: true, force: true });
    }
  });

  it("a large ripgrep record is read up to the submatches a page needs, the same as parsing it whole", () => {
    // Matches whose text holds quotes, backslashes, the record's own keys and bytes that are not UTF-8.
    const lines = ['x "start":1,"end":2} "\\" \\\\"  é x', 'x\\x ,"submatches":[ x', Buffer.from([0x78, 0xff, 0x78]).toString('latin1'), 'no match here', 'xx'];
    const file = join(root, 'rec.txt');
    write(root, 'rec.txt', Buffer.from(lines.join('\n') + '\n', 'latin1'));
    try {
      for (const pattern of ['x', '"start', '\\\\', ',"submatches":\\[']) {
        const out = execFileSync('rg', ['--json', '--text', '--regexp', pattern, file]);
        for (const rec of out.toString('latin1').split('\n').filter((l) => l.includes('"type":"match"'))) {
          const buf = Buffer.from(rec, 'latin1');
          const whole = JSON.parse(buf.toString('utf8')) as { type: string; data: { path: unknown; lines: unknown; line_number: number; submatches: { start: number; end: number }[] } };
          const plain = (m: typeof whole | undefined, n: number) => m && { type: m.type, path: m.data.path, lines: m.data.lines, line_number: m.data.line_number, submatches: m.data.submatches.slice(0, n).map((x) => [x.start, x.end]) };
          for (const max of [0, 1, 2, Infinity]) {
            const cut = parseMatchHead(buf, max);
            assert.ok(cut !== null, `${pattern}: ${rec}`);
            assert.deepEqual(plain(cut.m as typeof whole, Infinity), plain(whole, max), `${pattern}, max ${max}: ${rec}`);
            assert.equal(cut.more, whole.data.submatches.length > max);
            // A page resuming inside this line: the submatches through a column are left out, and not counted.
            for (const through of [0, ...whole.data.submatches.map((x) => x.start + 1), Infinity]) {
              const rest = through === Infinity ? [] : whole.data.submatches.filter((x) => x.start + 1 > through);
              const after = parseMatchHead(buf, max, () => through);
              assert.ok(after !== null);
              assert.deepEqual(after.m.data.submatches.map((x) => [x.start, x.end]), rest.slice(0, max).map((x) => [x.start, x.end]), `${pattern}, max ${max}, through ${through}`);
              assert.equal(after.more, rest.length > max);
            }
          }
        }
      }
    } finally {
      rmSync(file);
    }
  });

  it('the first page of one minified line of 2 million matches reads 201 of them from ripgrep', async () => {
    write(root, 'f/bundle.min.js', `${'ab'.repeat(2 * 1024 * 1024)}\n`); // over the in-process bound: ripgrep's
    // The longest text parsed as JSON: the record's head with its 4 MiB line, not its ~100 MB whole.
    const parse = JSON.parse;
    let longest = 0;
    JSON.parse = ((text: string, ...rest: unknown[]) => {
      longest = Math.max(longest, text.length);
      return (parse as (...a: unknown[]) => unknown)(text, ...rest);
    }) as typeof JSON.parse;
    try {
      const r = await page({ query: 'AB', case_sensitive: false, include: ['f/**'], include_generated: true, max_results: 200 });
      JSON.parse = parse;
      assert.ok(longest < 8 * 1024 * 1024, `parsed ${longest} characters at once`);
      assert.deepEqual(r.matches?.map((m) => m.column), Array.from({ length: 200 }, (_, i) => 2 * i + 1));
      assert.equal(r.truncation_reason, 'max_results');
    } finally {
      JSON.parse = parse;
      rmSync(join(root, 'f'), { recursive: true, force: true });
    }
  });

  it('literalHits leaves out the hits at or before a cursor, and counts the lines before it as ripgrep does', () => {
    const buf = Buffer.from('a a\nb\na\na a a\n');
    const at = (x: readonly LineHit[]): number[][] => x.map((y) => [y.line, y.column]);
    assert.deepEqual(at(literalHits(buf, Buffer.from('a'), Infinity, Infinity, { line: 3, column: 1 })), [[4, 1], [4, 3], [4, 5]]);
    assert.deepEqual(at(literalHits(buf, Buffer.from('a'), 3, Infinity, { line: 3, column: 1 })), [[4, 1], [4, 3], [4, 5]]);
    assert.deepEqual(at(literalHits(buf, Buffer.from('a'), 2, Infinity, { line: 3, column: 1 })), []);
    assert.deepEqual(at(literalHits(buf, Buffer.from('a'), Infinity, 2, { line: 1, column: 3 })), [[3, 1], [4, 1]]);
    // Against the whole answer, cut and filtered afterwards, on random text.
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    for (let round = 0; round < 300; round++) {
      const text = Buffer.from(Array.from({ length: 40 + rnd(200) }, () => 'ab\n '[rnd(4)]).join(''));
      const needle = Buffer.from(['a', 'ab', 'b a', 'aa'][rnd(4)] as string);
      const all = literalHits(text, needle);
      const maxLines = rnd(3) === 0 ? Infinity : rnd(20);
      const maxHits = rnd(3) === 0 ? Infinity : rnd(20);
      const cursor = all.length > 0 && rnd(4) > 0 ? (all[rnd(all.length)] as LineHit) : { line: 1 + rnd(10), column: rnd(6) };
      const want = literalHits(text, needle, maxLines).filter((x) => !(x.line < cursor.line || (x.line === cursor.line && x.column <= cursor.column))).slice(0, maxHits);
      assert.deepEqual(literalHits(text, needle, maxLines, maxHits, cursor), want, `${JSON.stringify(text.toString())} ${needle.toString()} ${maxLines} ${maxHits} ${JSON.stringify(cursor)}`);
    }
  });

  it('a page that resumes inside one minified line of 2 million matches reads its head and the submatches it needs, then stops ripgrep', async () => {
    write(root, 'g/bundle.min.js', `${'ab'.repeat(2 * 1024 * 1024)}\n`); // over the in-process bound: ripgrep's
    // Found 2026-12-06: each later page parsed the whole ~116 MB record (1 s of the event loop,
    // ~1 GB), and every page held the record whole while ripgrep wrote it.
    const parse = JSON.parse;
    const concat = Buffer.concat;
    let parsed = 0;
    let joined = 0;
    JSON.parse = ((text: string, ...rest: unknown[]) => {
      parsed = Math.max(parsed, text.length);
      return (parse as (...a: unknown[]) => unknown)(text, ...rest);
    }) as typeof JSON.parse;
    Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
      const b = concat(list, length);
      joined = Math.max(joined, b.length);
      return b;
    }) as typeof Buffer.concat;
    try {
      for (const args of [{ query: 'AB', case_sensitive: false }, { query: 'ab' }, { query: 'a.', mode: 'regex' }]) {
        const base = { ...args, include: ['g/**'], include_generated: true, max_results: 200 };
        const first = await page(base);
        const second = await page({ ...base, continuation: first.continuation });
        const third = await page({ ...base, continuation: second.continuation });
        assert.deepEqual(second.matches?.map((m) => m.column), Array.from({ length: 200 }, (_, i) => 2 * (i + 200) + 1), JSON.stringify(args));
        assert.deepEqual(third.matches?.map((m) => m.column), Array.from({ length: 200 }, (_, i) => 2 * (i + 400) + 1), JSON.stringify(args));
        assert.equal(third.truncation_reason, 'max_results');
      }
    } finally {
      JSON.parse = parse;
      Buffer.concat = concat;
      rmSync(join(root, 'g'), { recursive: true, force: true });
    }
    assert.ok(parsed < 8 * 1024 * 1024, `parsed ${parsed} characters at once`);
    assert.ok(joined < 32 * 1024 * 1024, `held ${joined} bytes of one record`);
  });

  it('literalHits stops before a hit on one line more than asked, or one hit more', () => {
    const buf = Buffer.from('a a\nb\na\na a a\n');
    assert.deepEqual(literalHits(buf, Buffer.from('a'), 2).map((x) => [x.line, x.column]), [[1, 1], [1, 3], [3, 1]]);
    assert.deepEqual(literalHits(buf, Buffer.from('a'), Infinity, 2).map((x) => [x.line, x.column]), [[1, 1], [1, 3]]);
    assert.equal(literalHits(buf, Buffer.from('a')).length, 6);
    assert.equal(literalHits(buf, Buffer.from('a'), 0).length, 0);
  });

  it('a page of one minified line of many matches makes only the hits it can use, and pages on through the line', async () => {
    const line = 'ab'.repeat(100_000);
    const hits = literalHits(Buffer.from(`${line}\n`), Buffer.from('ab'), Infinity, 201);
    assert.equal(hits.length, 201);
    write(root, 'd/bundle.min.js', `${line}\n`);
    try {
      const args = { query: 'ab', include: ['d/**'], include_generated: true, max_results: 200 };
      const first = await page(args);
      assert.deepEqual(first.matches?.map((m) => m.column), Array.from({ length: 200 }, (_, i) => 2 * i + 1));
      // The next page starts inside the line: its hits are counted from the cursor on.
      const second = await page({ ...args, continuation: first.continuation });
      assert.deepEqual(second.matches?.map((m) => m.column), Array.from({ length: 200 }, (_, i) => 2 * (i + 200) + 1));
    } finally {
      rmSync(join(root, 'd'), { recursive: true, force: true });
    }
  });
});
