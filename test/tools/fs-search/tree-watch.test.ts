// The kept candidate list watched with inotify (src/tools/fs-search/tree-watch.ts): every change
// that moves what git would list drops the list, whether it is made here, by another process or
// inside the bubblewrap sandbox; changes to file contents keep it; a queue overflow drops it; the
// inotify instances are closed with the list and with the tool. The same changes are checked
// with the lstat check (inotify off) as the oracle.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeRepo, write } from './fixture.js';
import { watchableFileSystem, Workspace } from '../../../src/resources/index.js';
import { listCandidates, PathClassCache } from '../../../src/tools/fs-search/candidates.js';
import { CandidateListCache, RACY_MARGIN_MS } from '../../../src/tools/fs-search/candidate-cache.js';
import { Sandbox } from '../../../src/sandbox/index.js';
import { BASE_ENV, waitFor } from '../../sandbox/fixtures.js';
import { inotifyInstances } from '../../support/inotify.js';

const opts = { include_ignored: false, include_generated: false };
const signal = new AbortController().signal;
const settle = (): Promise<void> => sleep(RACY_MARGIN_MS + 150);


/** A repository whose list is kept (settled first), with a deeper tree than the fixture's. */
async function keptList(inotify: boolean): Promise<{ root: string; ws: Workspace; lists: CandidateListCache; paths: () => Promise<string[]>; close: () => void }> {
  const root = makeRepo();
  write(root, 'deep/a/b/c/d.txt', 'x\n');
  const ws = Workspace.open(root);
  const lists = new CandidateListCache({ inotify });
  const classes = new PathClassCache();
  const paths = async (): Promise<string[]> => [...(await listCandidates(ws, opts, signal, classes, lists)).files];
  await settle();
  await paths();
  assert.ok(lists.lookup(ws, false), 'the list of a quiet tree is kept');
  // The watches are set up after the search that listed it; until then lookups lstat everything.
  assert.equal(await lists.watchedByInotify(ws, false), inotify);
  return {
    root,
    ws,
    lists,
    paths,
    close: () => {
      lists.close();
      ws.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The list a cache-less search takes now: the truth. */
async function fresh(root: string): Promise<string[]> {
  const ws = Workspace.open(root);
  try {
    return [...(await listCandidates(ws, opts, signal, new PathClassCache())).files];
  } finally {
    ws.close();
  }
}

describe('the kept list is watched with inotify here', () => {
  it('on this host (a local file system, koffi present), and one read answers the check', async () => {
    assert.equal(watchableFileSystem(tmpdir()), true, `${tmpdir()} is on a file system inotify watches`);
    const k = await keptList(true);
    try {
      assert.equal(await k.lists.watchedByInotify(k.ws, false), true);
      assert.equal(new CandidateListCache({ inotify: false }).inotify, false);
    } finally {
      k.close();
    }
  });
});

const sandbox = (root: string, script: string) => new Sandbox({ workspace: root }).run({ argv: ['sh', '-c', script], cwd: root, env: BASE_ENV, timeoutMs: 30_000 });

const changes: [string, (root: string) => void | Promise<unknown>, (paths: string[]) => boolean][] = [
  ['a file in a deep directory', (r) => write(r, 'deep/a/b/c/new.txt', 'x\n'), (p) => p.includes('deep/a/b/c/new.txt')],
  ['a directory renamed', (r) => renameSync(join(r, 'deep', 'a'), join(r, 'deep', 'z')), (p) => p.includes('deep/z/b/c/d.txt') && !p.includes('deep/a/b/c/d.txt')],
  ['a directory removed', (r) => rmSync(join(r, 'deep', 'a', 'b', 'c'), { recursive: true }), (p) => !p.includes('deep/a/b/c/d.txt')],
  ['a .gitignore replaced by a rename (as editors save)', (r) => {
    writeFileSync(join(r, '.gitignore.tmp'), 'build/\n*.log\ndeep/\n');
    renameSync(join(r, '.gitignore.tmp'), join(r, '.gitignore'));
  }, (p) => !p.includes('deep/a/b/c/d.txt')],
  ["a directory's mode changed (its ctime)", (r) => {
    chmodSync(join(r, 'deep'), 0o700);
  }, (p) => p.includes('deep/a/b/c/d.txt')],
  ['a file made inside the bubblewrap sandbox', (r) => sandbox(r, 'echo x > deep/a/from-sandbox.txt'), (p) => p.includes('deep/a/from-sandbox.txt')],
  ['a directory moved inside the bubblewrap sandbox', (r) => sandbox(r, 'mkdir -p moved && mv deep/a/b moved/'), (p) => p.includes('moved/b/c/d.txt')],
];

for (const inotify of [true, false]) {
  describe(`a change drops the kept list (inotify: ${inotify})`, () => {
    for (const [name, change, check] of changes) {
      it(`after ${name}`, async () => {
        const k = await keptList(inotify);
        try {
          await change(k.root);
          assert.equal(k.lists.lookup(k.ws, false), null, 'the list is dropped');
          const got = await k.paths();
          assert.deepEqual(got, await fresh(k.root));
          assert.ok(check(got), JSON.stringify(got));
        } finally {
          k.close();
        }
      });
    }
  });
}

describe('what does not change the list keeps it', () => {
  let k: Awaited<ReturnType<typeof keptList>>;
  before(async () => {
    k = await keptList(true);
  });
  after(() => k.close());

  it('new contents and new times of existing files', async () => {
    const kept = k.lists.lookup(k.ws, false);
    writeFileSync(join(k.root, 'lib.js'), 'const b = "needle";\n');
    writeFileSync(join(k.root, 'deep', 'a', 'b', 'c', 'd.txt'), 'y\n');
    utimesSync(join(k.root, 'src', 'a.ts'), new Date(), new Date());
    assert.equal(k.lists.lookup(k.ws, false), kept);
  });

  it('but a queue overflow drops it: events were lost', async () => {
    // Times set on two files in turn: each event is kept (none merges with the one before) and
    // ignored on its own; 20,000 of them overflow inotify's queue (16,384 by default).
    const a = join(k.root, 'lib.js');
    const b = join(k.root, 'Zeta.md');
    for (let i = 0; i < 20_000; i++) utimesSync(i % 2 ? a : b, i, i);
    assert.equal(k.lists.lookup(k.ws, false), null);
  });
});

describe('inotify instances', () => {
  it('are closed with a dropped list and with the cache', async () => {
    const before = inotifyInstances();
    const k = await keptList(true);
    try {
      assert.equal(inotifyInstances(), before + 1);
      for (let i = 0; i < 3; i++) {
        mkdirSync(join(k.root, `d${i}`));
        writeFileSync(join(k.root, `d${i}`, 'f.txt'), 'x\n');
        assert.equal(k.lists.lookup(k.ws, false), null);
        await waitFor(() => inotifyInstances() === before, 10_000, 'the dropped list to close its instance (on the thread pool)');
        await settle();
        await k.paths();
        assert.equal(await k.lists.watchedByInotify(k.ws, false), true);
        assert.equal(inotifyInstances(), before + 1, 'only the kept list holds one');
      }
    } finally {
      k.close();
    }
    await waitFor(() => inotifyInstances() === before, 10_000, 'the cache to close every instance');
  });

  it('a cache closed while its watches are being set up leaves no instance open', async () => {
    const k = await keptList(false);
    try {
      const before = inotifyInstances();
      const lists = new CandidateListCache();
      await listCandidates(k.ws, opts, signal, new PathClassCache(), lists);
      lists.close(); // the runtime closes right after a search that listed the tree
      assert.equal(await lists.watchedByInotify(k.ws, false), false);
      await waitFor(() => inotifyInstances() === before, 10_000, 'the instance being set up to be closed');
    } finally {
      k.close();
    }
  });

  it('a change while the watches are being set up drops the list: nothing is missed between listing and watching', async () => {
    const k = await keptList(false);
    try {
      // A cache of the same tree whose list is kept, changed before its watches are all in place.
      const lists = new CandidateListCache();
      const classes = new PathClassCache();
      await listCandidates(k.ws, opts, signal, classes, lists);
      assert.ok(lists.lookup(k.ws, false), 'kept');
      write(k.root, 'deep/a/b/c/during.txt', 'x\n'); // before the deepest directory's watch
      assert.equal(await lists.watchedByInotify(k.ws, false), false);
      assert.equal(lists.lookup(k.ws, false), null);
      const got = [...(await listCandidates(k.ws, opts, signal, classes, lists)).files];
      assert.ok(got.includes('deep/a/b/c/during.txt'));
      lists.close();
    } finally {
      k.close();
    }
  });
});
