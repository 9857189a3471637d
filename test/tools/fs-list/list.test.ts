// fs.list through runtime.call: depth, types and sizes, ignore rules, secrets, links (inside,
// outside, to a secret, dangling), bounds with a continuation, and authorization of the path.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { makeTree, listHarness, type ListHarness } from './fixture.js';
import type { FsListResult, ListEntry } from '../../../src/tools/fs-list/schema.js';

let tree: ReturnType<typeof makeTree>;
let h: ListHarness;
before(async () => {
  tree = makeTree();
  h = await listHarness(tree.root);
});
after(async () => {
  await h.close();
  tree.cleanup();
});

async function list(args: Record<string, unknown>): Promise<FsListResult> {
  const r = await h.call(args);
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  return r.result as FsListResult;
}

const brief = (e: ListEntry): string =>
  `${e.path} ${e.type}${e.size !== null ? ` ${e.size}` : ''}${e.type === 'symlink' ? ` -> ${e.target ?? e.target_hidden ?? e.target_type}` : ''}`;

describe('fs.list', () => {
  it('lists depth 2 of the root in byte order: types, sizes, links as links; ignored, generated and secret entries counted, not listed', async () => {
    const r = await list({});
    assert.deepEqual(r.entries.map(brief), [
      '.gitignore file 13',
      'README.md file 7',
      'app-link.ts symlink -> src/app.ts',
      'dangling symlink -> nowhere.txt',
      'empty directory',
      'env-link symlink -> secret',
      'keys directory',
      'out-abs symlink -> outside_workspace',
      'out-rel symlink -> outside_workspace',
      'src directory',
      'src/app.ts file 22',
      'src/lib directory',
      'src/lib-link symlink -> src/lib',
    ]);
    // build/ and debug.log (.gitignore), node_modules/ (generated), .env and keys/server.pem (secret).
    assert.deepEqual(r.omitted, { ignored: 2, generated: 1, secret: 2 });
    assert.equal(r.truncated, false);
    assert.equal(r.more, 0);
    assert.equal(r.continuation, null);
    assert.ok(!r.entries.some((e) => e.path === '.git' || e.path.startsWith('.git/')), 'the .git directory is never listed');
    assert.ok(!JSON.stringify(r).includes(tree.outside), 'no outside path appears in the result');
  });

  it('renders a compact indented tree as its text', async () => {
    const r = await list({ depth: 3, path: 'src' });
    assert.equal(
      r.text,
      ['src/  (6 entries, depth 3)', '  app.ts  22 B', '  lib/', '    deep/', '      x.ts  2 B', '    util.ts  26 B', '  lib-link -> src/lib/  (link)'].join('\n'),
    );
  });

  it('depth 1 is ls: no entry below the listed directory', async () => {
    const r = await list({ depth: 1 });
    assert.ok(r.entries.every((e) => e.depth === 1 && !e.path.includes('/')));
    assert.ok(r.entries.some((e) => e.path === 'src' && e.type === 'directory'));
  });

  it('include_ignored and include_generated list what the rules leave out; secrets never', async () => {
    const r = await list({ depth: 4, include_ignored: true, include_generated: true });
    const paths = r.entries.map((e) => e.path);
    for (const p of ['build', 'build/out.js', 'debug.log', 'node_modules', 'node_modules/pkg/index.js']) assert.ok(paths.includes(p), p);
    assert.ok(!paths.includes('.env') && !paths.includes('keys/server.pem'));
    assert.equal(r.omitted.secret, 2);
    assert.ok(!r.text.includes('hunter2') && !r.text.includes('.env') && !r.text.includes('server.pem'));
  });

  it('is bounded: max_entries, the count of the rest, and a continuation that pages through the whole tree', async () => {
    const all = await list({ depth: 5 });
    const seen: string[] = [];
    let page = await list({ depth: 5, max_entries: 4 });
    assert.equal(page.truncated, true);
    assert.equal(page.more, all.entries.length - 4);
    assert.equal(page.more_exact, true);
    assert.match(page.text, new RegExp(`… ${all.entries.length - 4} more entries not shown; call fs.list again with "continuation"`));
    for (let i = 0; i < 20; i++) {
      seen.push(...page.entries.map((e) => e.path));
      if (page.continuation === null) break;
      page = await list({ depth: 5, max_entries: 4, continuation: page.continuation });
    }
    assert.deepEqual(seen, all.entries.map((e) => e.path));
  });

  it('refuses a continuation for another listing', async () => {
    const first = await list({ depth: 5, max_entries: 2 });
    const r = await h.call({ depth: 4, max_entries: 2, continuation: first.continuation });
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'invalid_continuation');
  });

  it('a secret directory, a file, a missing path and a path out of the workspace are refused with typed errors', async () => {
    const cases: [string, string][] = [
      ['.env', 'secret_path'],
      ['README.md', 'invalid_resource'],
      ['nope', 'not_found'],
      ['../outside', 'path_escape'],
      ['out-abs', 'path_escape'],
    ];
    for (const [path, code] of cases) {
      const r = await h.call({ path });
      assert.notEqual(r.status, 'succeeded', path);
      assert.equal(r.error?.code, code, `${path}: ${JSON.stringify(r.error)}`);
    }
  });

  it('a link to a directory inside is listed by its canonical path', async () => {
    const r = await list({ path: 'src/lib-link', depth: 1 });
    assert.equal(r.path, 'src/lib');
    assert.deepEqual(r.entries.map((e) => e.path), ['src/lib/deep', 'src/lib/util.ts']);
  });
});

describe('fs.list authorization', () => {
  it('a grant of src/** lists src but not the root', async () => {
    const limited = await listHarness(tree.root, ['src/**', 'src']);
    try {
      const ok = await limited.call({ path: 'src' });
      assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
      const root = await limited.call({ path: '.' });
      assert.equal(root.status, 'denied', JSON.stringify(root));
    } finally {
      await limited.close();
    }
  });

  it('counts at most 10,000 entries past a page (the walk runs on the main thread), then says the count is a floor', async () => {
    const dir = join(tree.root, 'many');
    mkdirSync(dir);
    try {
      for (let i = 0; i < 10_600; i++) writeFileSync(join(dir, `f${i}`), '');
      const page = await list({ path: 'many' });
      assert.equal(page.entries.length, 500);
      assert.equal(page.more, 10_000);
      assert.equal(page.more_exact, false);
      assert.match(page.text, /… at least 10000 more entries not shown/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('types every entry as a link is (file, directory, link, fifo, socket), on the page and on the next one', async () => {
    // Types come from the listing's d_type; only listed entries are lstat'ed, for their size.
    const dir = join(tree.root, 'kinds');
    mkdirSync(join(dir, 'd'), { recursive: true });
    try {
      writeFileSync(join(dir, 'a.txt'), 'abc');
      symlinkSync('a.txt', join(dir, 'b-link'));
      symlinkSync('d', join(dir, 'c-dirlink'));
      execFileSync('mkfifo', [join(dir, 'e-fifo')]);
      const server = createServer().listen(join(dir, 'f-socket'));
      await once(server, 'listening');
      try {
        const want = ['kinds/a.txt file 3', 'kinds/b-link symlink -> kinds/a.txt', 'kinds/c-dirlink symlink -> kinds/d', 'kinds/d directory', 'kinds/e-fifo other', 'kinds/f-socket other'];
        assert.deepEqual((await list({ path: 'kinds' })).entries.map(brief), want);
        const pages: string[] = [];
        let page = await list({ path: 'kinds', max_entries: 2 });
        for (;;) {
          pages.push(...page.entries.map(brief));
          if (page.continuation === null || page.continuation === undefined) break;
          page = await list({ path: 'kinds', max_entries: 2, continuation: page.continuation });
        }
        assert.deepEqual(pages, want);
      } finally {
        server.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
