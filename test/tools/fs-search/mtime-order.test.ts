// filename mode with order: "mtime" (what agents' Glob tools list): newest first, ties in path
// order; pages concatenate to the whole list; a continuation is stale once any candidate's
// mtime changed (the order depends on all of them); other modes refuse the option.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { harness, makeRepo, write, type Harness } from './fixture.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

let h: Harness;
const NAMES = ['m/a.md', 'm/b.md', 'm/c.md', 'm/d.md', 'm/e.md'];
before(async () => {
  const root = makeRepo();
  for (const n of NAMES) write(root, n, 'x\n');
  // Distinct mtimes, not in path order: c newest, then a, e, b; d ties with b (path order decides).
  const at: Record<string, number> = { 'm/c.md': 5000, 'm/a.md': 4000, 'm/e.md': 3000, 'm/b.md': 2000, 'm/d.md': 2000 };
  for (const [n, s] of Object.entries(at)) utimesSync(join(root, n), s, s);
  h = await harness(root);
});
after(async () => {
  await h.close();
  rmSync(h.root, { recursive: true, force: true });
});

async function page(args: Record<string, unknown>): Promise<FsSearchResult> {
  const r = await h.call({ mode: 'filename', query: '*.md', include: ['m/**'], output: 'paths_only', order: 'mtime', ...args }, 'mtime-task');
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  return r.result as FsSearchResult;
}

describe('fs.search order: mtime', () => {
  it('lists newest first, ties in path order', async () => {
    assert.deepEqual((await page({})).paths, ['m/c.md', 'm/a.md', 'm/e.md', 'm/b.md', 'm/d.md']);
  });

  it('pages of every size concatenate to the whole list', async () => {
    const whole = (await page({})).paths;
    for (const size of [1, 2, 3]) {
      const got: string[] = [];
      let p = await page({ max_results: size });
      got.push(...(p.paths ?? []));
      for (let i = 0; p.continuation !== null && i < 10; i++) {
        p = await page({ max_results: size, continuation: p.continuation });
        got.push(...(p.paths ?? []));
      }
      assert.equal(p.truncated, false);
      assert.deepEqual(got, whole, `page size ${size}`);
    }
  });

  it('a continuation is stale once any candidate\'s mtime changed, even one not yet returned', async () => {
    const first = await page({ max_results: 2 });
    assert.ok(first.continuation);
    utimesSync(join(h.root, 'm/d.md'), 9000, 9000);
    const r = await h.call({ mode: 'filename', query: '*.md', include: ['m/**'], output: 'paths_only', order: 'mtime', max_results: 2, continuation: first.continuation }, 'mtime-task');
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'stale_continuation');
    utimesSync(join(h.root, 'm/d.md'), 2000, 2000);
  });

  it('a continuation of path order is refused in mtime order (another sort order)', async () => {
    const byPath = await h.call({ mode: 'filename', query: '*.md', include: ['m/**'], output: 'paths_only', max_results: 2 }, 'mtime-task');
    const token = (byPath.result as FsSearchResult).continuation;
    assert.ok(token);
    const r = await h.call({ mode: 'filename', query: '*.md', include: ['m/**'], output: 'paths_only', order: 'mtime', max_results: 2, continuation: token }, 'mtime-task');
    assert.equal(r.error?.code, 'invalid_continuation');
  });

  it('other modes refuse order mtime with invalid_arguments at /order', async () => {
    const r = await h.call({ query: 'x', order: 'mtime' }, 'mtime-task');
    assert.equal(r.error?.code, 'invalid_arguments');
    assert.deepEqual((r.error?.data as { faults: { pointer: string }[] }).faults.map((f) => f.pointer), ['/order']);
  });
});
