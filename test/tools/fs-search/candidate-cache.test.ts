import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { git, harness, makeRepo, write, type Harness } from './fixture.js';
import { Workspace } from '../../../src/resources/index.js';
import { listCandidates, PathClassCache } from '../../../src/tools/fs-search/candidates.js';
import { CandidateListCache, RACY_MARGIN_MS } from '../../../src/tools/fs-search/candidate-cache.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

const opts = { include_ignored: false, include_generated: false };
/** Long enough for every timestamp of the tree to be past the racy margin. */
const settle = (): Promise<void> => sleep(RACY_MARGIN_MS + 150);

describe('candidate list cache', () => {
  let root: string;
  before(() => {
    root = makeRepo();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('keeps a list only once the tree is older than the racy margin, and reuses it while nothing changed', async () => {
    const ws = Workspace.open(root);
    try {
      const lists = new CandidateListCache();
      const classes = new PathClassCache();
      const signal = new AbortController().signal;
      write(root, 'fresh.txt', 'x\n'); // the root directory changed just now
      await listCandidates(ws, opts, signal, classes, lists);
      assert.equal(lists.lookup(ws, false), null, 'a list taken right after a change is not kept');
      await settle();
      const first = await listCandidates(ws, opts, signal, classes, lists);
      const kept = lists.lookup(ws, false);
      assert.ok(kept, 'a list of a quiet tree is kept');
      const second = await listCandidates(ws, opts, signal, classes, lists);
      assert.equal(second, first, 'the same list object is reused');
      write(root, 'src/newer.ts', 'x\n');
      assert.equal(lists.lookup(ws, false), null, 'a new file drops the list');
    } finally {
      ws.close();
    }
  });
});

describe('fs.search through the cache sees every change made outside Toolgate', () => {
  let h: Harness;
  before(async () => {
    const root = makeRepo();
    mkdirSync(join(root, 'empty', 'sub'), { recursive: true });
    for (const p of ['u1.txt', 'u2.txt', 'src/u3.txt']) write(root, p, 'needle\n');
    h = await harness(root);
  });
  after(async () => {
    await h.close();
    rmSync(h.root, { recursive: true, force: true });
  });

  /** What a tool instance with no cache answers. */
  async function truth(args: Record<string, unknown>): Promise<FsSearchResult> {
    const fresh = await harness(h.root);
    try {
      return (await fresh.call(args)).result as FsSearchResult;
    } finally {
      await fresh.close();
    }
  }

  const changes: [string, (root: string) => void, (paths: string[]) => boolean][] = [
    ['a file in an empty untracked directory', (r) => write(r, 'empty/sub/new.txt', 'needle\n'), (p) => p.includes('empty/sub/new.txt')],
    ['a new untracked file', (r) => write(r, 'src/another.ts', 'needle\n'), (p) => p.includes('src/another.ts')],
    ['a .gitignore edited in place', (r) => appendFileSync(join(r, '.gitignore'), 'u1.txt\n'), (p) => !p.includes('u1.txt')],
    ['info/exclude', (r) => appendFileSync(join(r, '.git', 'info', 'exclude'), 'u2.txt\n'), (p) => !p.includes('u2.txt')],
    ['a file removed from the index', (r) => void git(r, 'rm', '-q', '--cached', 'lib.js'), (p) => p.includes('lib.js')],
    ['a new .gitignore in a subdirectory', (r) => writeFileSync(join(r, 'src', '.gitignore'), 'u3.txt\n'), (p) => !p.includes('src/u3.txt')],
    ['a new file that sorts first', (r) => write(r, '0first.txt', 'needle\n'), (p) => p[0] === '0first.txt'],
    ['a deleted untracked file', (r) => rmSync(join(r, 'src', 'untracked.ts')), (p) => !p.includes('src/untracked.ts')],
  ];
  for (const [name, change, check] of changes) {
    it(`after ${name}`, async () => {
      await settle();
      await h.call({ query: 'needle', output: 'paths_only' }); // fills the cache
      change(h.root);
      // A first page of matches starts on the kept list while checking it: it must start over.
      for (const args of [{ query: 'needle', max_results: 3 }, { query: 'needle', output: 'paths_only' }]) {
        const got = (await h.call(args)).result as FsSearchResult;
        const want = await truth(args);
        assert.deepEqual({ ...got, continuation: null }, { ...want, continuation: null });
      }
      const paths = ((await h.call({ query: 'needle', output: 'paths_only' })).result as FsSearchResult).paths ?? [];
      assert.ok(check(paths), JSON.stringify(paths));
    });
  }
});
