import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { harness, makeRepo, write, type Harness } from './fixture.js';
import { createFsSearch } from '../../../src/tools/fs-search/tool.js';
import type { AnyTool } from '../../../src/registry/index.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

let h: Harness;
before(async () => {
  const root = makeRepo();
  // Enough results to page through: several files, several matches a line.
  for (let i = 0; i < 4; i++) write(root, `many/f${String(i).padStart(2, '0')}.txt`, 'needle needle\nx\nneedle\n'.repeat(3));
  // Long lines, so that a page reaches max_bytes before max_results.
  write(root, 'many/long.txt', ('needle ' + 'y'.repeat(220) + '\n').repeat(12));
  h = await harness(root);
});
after(async () => {
  await h.close();
  rmSync(h.root, { recursive: true, force: true });
});

async function page(args: Record<string, unknown>, task = 't1'): Promise<FsSearchResult> {
  const r = await h.call(args, task);
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  return r.result as FsSearchResult;
}

/** Follows continuations to the end; returns the pages. */
async function allPages(args: Record<string, unknown>): Promise<FsSearchResult[]> {
  const pages = [await page(args)];
  for (let last = pages[0]; last?.continuation; last = pages[pages.length - 1]) {
    pages.push(await page({ ...args, continuation: last.continuation }));
    assert.ok(pages.length < 500, 'paging does not end');
  }
  return pages;
}

describe('fs.search paging', () => {
  for (const [name, args] of [
    ['literal matches', { query: 'needle' }],
    ['literal matches with context', { query: 'needle', context_lines: 1 }],
    ['regex matches', { mode: 'regex', query: 'ne+dle' }],
    ['count_only', { query: 'needle', output: 'count_only' }],
    ['paths_only', { query: 'needle', output: 'paths_only' }],
    ['filename', { mode: 'filename', query: '*.txt' }],
    ['symbol', { mode: 'symbol', query: 'load' }],
    ['structural', { mode: 'structural', query: 'console.log($$$A)' }],
  ] as const) {
    it(`pages of ${name} concatenate to exactly the unbounded result, for every page size`, async () => {
      const whole = await page({ ...args, max_results: 10_000 });
      assert.equal(whole.truncated, false);
      const key = whole.matches ? 'matches' : whole.counts ? 'counts' : 'paths';
      for (const size of [1, 3, 7]) {
        const pages = await allPages({ ...args, max_results: size });
        const joined = pages.flatMap((p) => (p[key] ?? []) as unknown[]);
        assert.deepEqual(joined, whole[key], `page size ${size}`);
        for (const p of pages.slice(0, -1)) {
          assert.equal(p.truncated, true);
          assert.equal(p.truncation_reason, 'max_results');
          assert.equal(p.total, null);
        }
        const last = pages[pages.length - 1];
        assert.equal(last?.truncated, false);
        assert.equal(last?.total, whole.total);
      }
    });
  }

  it('max_bytes bounds a page and says so; the pages still reassemble', async () => {
    const whole = await page({ query: 'needle', max_results: 10_000 });
    const pages = await allPages({ query: 'needle', max_bytes: 16 * 1024, context_lines: 10, max_results: 10_000 });
    assert.ok(pages.length > 1);
    assert.equal(pages[0]?.truncation_reason, 'max_bytes');
    for (const p of pages) assert.ok(Buffer.byteLength(JSON.stringify(p)) <= 16 * 1024 + 1024);
    assert.deepEqual(pages.flatMap((p) => p.matches ?? []).map((m) => `${m.path}:${m.line}:${m.column}`), whole.matches?.map((m) => `${m.path}:${m.line}:${m.column}`));
  });

  it('a tampered token is invalid_continuation', async () => {
    const first = await page({ query: 'needle', max_results: 2 });
    const token = first.continuation as string;
    const [v, body, mac] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { p: { before: number } };
    payload.p.before = 0;
    const forged = `${v}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${mac}`;
    const r = await h.call({ query: 'needle', max_results: 2, continuation: forged });
    assert.equal(r.error?.code, 'invalid_continuation');
    const cut = await h.call({ query: 'needle', max_results: 2, continuation: token.slice(0, -2) });
    assert.equal(cut.error?.code, 'invalid_continuation');
  });

  it('a token used for another query, mode, option or task is invalid_continuation', async () => {
    const first = await page({ query: 'needle', max_results: 2 });
    const token = first.continuation as string;
    for (const other of [{ query: 'needles' }, { query: 'needle', mode: 'regex' }, { query: 'needle', include: ['src/**'] }, { query: 'needle', output: 'count_only' }]) {
      const r = await h.call({ max_results: 2, ...other, continuation: token });
      assert.equal(r.error?.code, 'invalid_continuation', JSON.stringify(other));
    }
    const elsewhere = await h.call({ query: 'needle', max_results: 2, continuation: token }, 't2');
    assert.equal(elsewhere.error?.code, 'invalid_continuation');
    // Page bounds are not part of the query: a bigger page may follow a smaller one.
    const bigger = await page({ query: 'needle', max_results: 30, continuation: token });
    assert.equal(bigger.matches?.length, 30);
  });

  it('a token is stale once a file already searched changes outside Toolgate', async () => {
    const first = await page({ query: 'needle', max_results: 3 });
    const searched = first.matches?.[0]?.path as string;
    appendFileSync(join(h.root, searched), 'needle\n');
    try {
      const r = await h.call({ query: 'needle', max_results: 3, continuation: first.continuation });
      assert.equal(r.error?.code, 'stale_continuation');
      assert.equal(r.result, null);
    } finally {
      write(h.root, searched, 'needle in caps dir\n');
    }
  });

  it('a token is stale once a file is added or touched before the cursor, even without a new match', async () => {
    const first = await page({ query: 'needle', max_results: 3 });
    write(h.root, 'src/new.ts', 'nothing here\n');
    try {
      const r = await h.call({ query: 'needle', max_results: 3, continuation: first.continuation });
      assert.equal(r.error?.code, 'stale_continuation');
    } finally {
      rmSync(join(h.root, 'src/new.ts'));
    }
    const again = await page({ query: 'needle', max_results: 3 });
    const t = new Date(Date.now() + 5000);
    utimesSync(join(h.root, 'Zeta.md'), t, t);
    const r = await h.call({ query: 'needle', max_results: 3, continuation: again.continuation });
    assert.equal(r.error?.code, 'stale_continuation');
  });

  it('the fallback engine pages to the same result as ripgrep', async () => {
    const js = await harness(h.root, [createFsSearch({ engine: 'javascript' }) as unknown as AnyTool]);
    try {
      for (const args of [{ query: 'needle' }, { mode: 'regex', query: 'ne+dle|ca?ps' }, { query: 'NEEDLE', case_sensitive: false, output: 'count_only' }, { query: 'needle', output: 'paths_only' }, { mode: 'symbol', query: 'parseConfig' }]) {
        const want = await page({ ...args, max_results: 10_000 });
        const got = (await js.call({ ...args, max_results: 10_000 })).result as FsSearchResult;
        assert.equal(got.engine.includes('javascript'), true);
        assert.deepEqual({ ...got, engine: '' }, { ...want, engine: '' }, JSON.stringify(args));
        const r1 = (await js.call({ ...args, max_results: 4 })).result as FsSearchResult;
        const r2 = (await js.call({ ...args, max_results: 10_000, continuation: r1.continuation ?? undefined })).result as FsSearchResult;
        if (r1.continuation) assert.deepEqual([...(r1.matches ?? r1.counts ?? r1.paths ?? []), ...(r2.matches ?? r2.counts ?? r2.paths ?? [])], want.matches ?? want.counts ?? want.paths);
      }
    } finally {
      await js.close();
    }
  });
});
