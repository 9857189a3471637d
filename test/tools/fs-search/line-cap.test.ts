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
import { RipgrepEngine } from '../../../src/tools/fs-search/engines/ripgrep.js';
import { literalHits } from '../../../src/tools/fs-search/engines/literal-scan.js';
import { ScanWorkers } from '../../../src/tools/fs-search/engines/scan-workers.js';
import { linesHit, type ContentQuery } from '../../../src/tools/fs-search/engines/types.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

const LOG_LINES = 3_000;

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
          const found = (await engine.search(['a/log.txt', 'b/after.txt'], query, reader, AbortSignal.timeout(60_000), stopAfter, 201)).found;
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

  it('literalHits stops before a hit on one line more than asked', () => {
    const buf = Buffer.from('a a\nb\na\na a a\n');
    assert.deepEqual(literalHits(buf, Buffer.from('a'), 2).map((x) => [x.line, x.column]), [[1, 1], [1, 3], [3, 1]]);
    assert.equal(literalHits(buf, Buffer.from('a')).length, 6);
    assert.equal(literalHits(buf, Buffer.from('a'), 0).length, 0);
  });
});
