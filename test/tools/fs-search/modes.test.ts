import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { harness, makeRepo, write, type Harness } from './fixture.js';
import type { FsSearchResult, SearchMatch } from '../../../src/tools/fs-search/schema.js';

let h: Harness;
before(async () => {
  h = await harness(makeRepo());
});
after(async () => {
  await h.close();
  rmSync(h.root, { recursive: true, force: true });
});

async function search(args: Record<string, unknown>): Promise<FsSearchResult> {
  const r = await h.call(args);
  assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
  return r.result as FsSearchResult;
}

const at = (m: SearchMatch): string => `${m.path}:${m.line}:${m.column}-${m.end_column}`;

describe('fs.search modes on a real git repository', () => {
  it('literal finds every occurrence in tracked and untracked text files, in path byte order, line, column', async () => {
    const r = await search({ query: 'needle' });
    assert.deepEqual(r.matches?.map(at), [
      'Zeta.md:1:1-7',
      'lib-extra.js:1:4-10',
      'lib.js:1:12-18',
      'lib/x.js:1:1-7',
      'lib/x.js:2:13-19',
      'lib/x.js:2:21-27',
      'src/a.ts:3:31-37',
      'src/b.py:3:20-26',
      'src/untracked.ts:1:14-20',
      'src/é.ts:1:13-19', // byte columns: "ü" is two bytes
    ]);
    assert.equal(r.total, 10);
    assert.equal(r.truncated, false);
    assert.equal(r.continuation, null);
    assert.equal(r.matches?.[0]?.text, 'needle in caps dir');
  });

  it('counts what it skipped and returns none of it: ignored, generated, binary and secret files', async () => {
    const r = await search({ query: 'needle' });
    // build/ and debug.log (ignored); node_modules/, dist/ and src/gen.ts (generated);
    // assets/blob.bin (binary); .env and config/id_rsa (secret). Links are never searched.
    assert.deepEqual(r.skipped, { ignored: 2, generated: 3, binary: 1, secret: 2 });
    const paths = new Set(r.matches?.map((m) => m.path));
    for (const p of ['build/out.js', 'debug.log', 'node_modules/pkg/index.js', 'dist/out.js', 'src/gen.ts', 'assets/blob.bin', '.env', 'config/id_rsa', 'a-link.ts']) {
      assert.equal(paths.has(p), false, p);
    }
  });

  it('searches protected files (write-protected, not secret), such as toolgate.config.json', async () => {
    write(h.root, 'toolgate.config.json', '{"needle": true}\n');
    try {
      const r = await search({ query: 'needle', output: 'paths_only', include: ['*.json'] });
      assert.deepEqual(r.paths, ['toolgate.config.json']);
      assert.equal(r.skipped.secret, 0);
    } finally {
      rmSync(join(h.root, 'toolgate.config.json'));
    }
  });

  it('include_ignored and include_generated bring those files back; secrets never come back', async () => {
    const r = await search({ query: 'needle', output: 'paths_only', include_ignored: true, include_generated: true });
    assert.deepEqual(r.paths, [
      'Zeta.md',
      'build/out.js',
      'debug.log',
      'dist/out.js',
      'lib-extra.js',
      'lib.js',
      'lib/x.js',
      'node_modules/pkg/index.js',
      'src/a.ts',
      'src/b.py',
      'src/gen.ts',
      'src/untracked.ts',
      'src/é.ts',
    ]);
    assert.deepEqual(r.skipped, { ignored: 0, generated: 0, binary: 1, secret: 2 });
  });

  it('include and exclude globs narrow the files searched', async () => {
    const r = await search({ query: 'needle', output: 'paths_only', include: ['src/**', '*.md'], exclude: ['**/untracked.ts'] });
    assert.deepEqual(r.paths, ['Zeta.md', 'src/a.ts', 'src/b.py', 'src/é.ts']);
    const js = await search({ query: 'needle', output: 'paths_only', include: ['*.js'] });
    assert.deepEqual(js.paths, ['lib-extra.js', 'lib.js', 'lib/x.js']);
  });

  it('count_only gives per-file counts that add up to the matches', async () => {
    const r = await search({ query: 'needle', output: 'count_only' });
    assert.deepEqual(r.counts?.find((c) => c.path === 'lib/x.js'), { path: 'lib/x.js', count: 3 });
    assert.equal(r.counts?.reduce((s, c) => s + c.count, 0), 10);
    assert.equal(r.total, 10);
  });

  it('case_sensitive false matches regardless of case', async () => {
    const r = await search({ query: 'NEEDLE', case_sensitive: false, output: 'count_only' });
    assert.equal(r.total, 10);
    const none = await search({ query: 'NEEDLE', output: 'count_only' });
    assert.equal(none.total, 0);
  });

  it('context_lines returns the lines around each match', async () => {
    const r = await search({ query: 'JSON.parse', context_lines: 1 });
    assert.deepEqual(r.matches, [
      {
        path: 'src/a.ts',
        line: 3,
        column: 10,
        end_column: 20,
        text: '  return JSON.parse(text); // needle',
        context: { before: ['export function parseConfig(text: string): Config {'], after: ['}'] },
      },
    ]);
  });

  it('regex uses ripgrep syntax and reports every match with its byte range', async () => {
    const r = await search({ mode: 'regex', query: 'ne+dle\\(\\)' });
    assert.deepEqual(r.matches?.map(at), ['lib/x.js:1:1-9']);
    const words = await search({ mode: 'regex', query: '\\bMAX_\\w+', output: 'count_only' });
    assert.deepEqual(words.counts, [
      { path: 'src/a.ts', count: 1 },
      { path: 'src/b.py', count: 1 },
    ]);
  });

  it('an invalid regex is invalid_arguments with the engine message, and nothing runs', async () => {
    const r = await h.call({ mode: 'regex', query: '(a+' });
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'invalid_arguments');
    assert.match(String((r.error?.data['faults'] as { message: string }[])[0]?.message), /unclosed group/);
    assert.equal(r.result, null);
  });

  it('filename mode matches a glob against the file name, or a substring of the path', async () => {
    const g = await search({ mode: 'filename', query: '*.py' });
    assert.deepEqual(g.matches?.map(at), ['src/b.py:0:5-9']);
    const s = await search({ mode: 'filename', query: 'lib', filename_match: 'substring', output: 'paths_only' });
    assert.deepEqual(s.paths, ['lib-extra.js', 'lib.js', 'lib/x.js']);
    const secret = await search({ mode: 'filename', query: 'env', filename_match: 'substring', output: 'paths_only' });
    assert.deepEqual(secret.paths, []);
  });

  it('symbol mode finds definitions by name in TypeScript, Python, Go and Rust, and no uses', async () => {
    const cases: [string, string[]][] = [
      ['parseConfig', ['src/a.ts:2:17-28 function']],
      ['ConfigStore', ['src/a.ts:5:14-25 class']],
      ['load', ['src/a.ts:6:3-7 method', 'src/b.py:5:9-13 method']],
      ['Config', ['src/a.ts:8:18-24 interface']],
      ['ConfigId', ['src/a.ts:9:13-21 type']],
      ['MAX_CONFIG', ['src/a.ts:10:14-24 constant']],
      ['parse_config', ['src/b.py:2:5-17 function']],
      ['MAX_RETRIES', ['src/b.py:1:1-12 constant']],
      ['Loader', ['src/b.py:4:7-13 class']],
      ['Server', ['src/c.go:3:6-12 struct']],
      ['Serve', ['src/c.go:4:17-22 method']],
      ['NewServer', ['src/c.go:5:6-15 function']],
      ['Limit', ['src/c.go:2:7-12 constant']],
      ['Parser', ['src/d.rs:1:12-18 struct']],
      ['parse', ['src/d.rs:2:22-27 method']],
      ['make_parser', ['src/d.rs:3:8-19 function']],
      ['LIMIT', ['src/d.rs:4:7-12 constant']],
      ['used', ['src/a.ts:11:7-11 constant']],
    ];
    for (const [name, want] of cases) {
      const r = await search({ mode: 'symbol', query: name });
      assert.deepEqual(r.matches?.map((m) => `${at(m)} ${m.kind}`), want, name);
    }
  });

  it('structural mode matches ast-grep patterns with metavariables', async () => {
    const r = await search({ mode: 'structural', query: 'console.log($$$ARGS)' });
    assert.deepEqual(r.matches?.map(at), ['lib/x.js:2:1-28', 'src/a.ts:12:1-18']);
    const py = await search({ mode: 'structural', query: 'return $X', language: 'python' });
    assert.deepEqual(py.matches?.map(at), ['src/b.py:3:5-16', 'src/b.py:6:9-33']);
  });

  it('a structural match spanning lines gives its first line and the line it ends on', async () => {
    const r = await search({ mode: 'structural', query: 'class $C { $$$BODY }', language: 'typescript' });
    assert.deepEqual(r.matches, [{ path: 'src/a.ts', line: 5, column: 8, end_column: 2, end_line: 7, text: 'export class ConfigStore {' }]);
  });

  it('a structural pattern that parses in no language is invalid_arguments', async () => {
    const r = await h.call({ mode: 'structural', query: 'function (((', language: 'typescript' });
    assert.equal(r.error?.code, 'invalid_arguments');
  });

  it('gives identical bytes for the same query on the same revision', async () => {
    const args = { query: 'needle', context_lines: 2 };
    const a = await search(args);
    const b = await search(args);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  });

  it('never follows a link: results stay beneath the root and are workspace-relative', async () => {
    const r = await search({ query: 'root', output: 'paths_only' });
    for (const p of r.paths ?? []) {
      assert.ok(!p.startsWith('/') && !p.startsWith('etc-link') && !p.startsWith('a-link'), p);
    }
    const f = await search({ mode: 'filename', query: 'passwd', filename_match: 'substring', output: 'paths_only' });
    assert.deepEqual(f.paths, []);
  });
});

describe('fs.search authorization', () => {
  it('declares the directories its include globs confine it to, so a narrower grant can allow it', async () => {
    const narrow = await harness(h.root, undefined, { tools: ['*'], effects: ['read'], read: ['src/**'], write: [] });
    try {
      const inside = await narrow.call({ query: 'needle', include: ['src/**/*.ts', 'src/*.py'], output: 'paths_only' });
      assert.equal(inside.status, 'succeeded', JSON.stringify(inside.error));
      assert.deepEqual(inside.normalized_action?.resources, [{ kind: 'path', path: 'src', access: 'read' }]);
      assert.deepEqual((inside.result as FsSearchResult).paths, ['src/a.ts', 'src/b.py', 'src/untracked.ts', 'src/é.ts']);
      for (const args of [{ query: 'needle' }, { query: 'needle', include: ['*.ts'] }, { query: 'needle', include: ['src/**', 'lib/**'] }]) {
        const r = await narrow.call(args);
        assert.equal(r.error?.code, 'policy_denied', JSON.stringify(args));
        assert.equal(r.result, null);
      }
      const escape = await narrow.call({ query: 'needle', include: ['../**/x'] });
      assert.equal(escape.error?.code, 'path_escape');
    } finally {
      await narrow.close();
    }
  });
});

describe('fs.search outside a git work tree', () => {
  it('walks the tree without following links and applies the same skips', async () => {
    const root = mkdtempSync(join(tmpdir(), 'fs-search-plain-'));
    const outside = mkdtempSync(join(tmpdir(), 'fs-search-outside-'));
    write(root, 'b/x.txt', 'needle\n');
    write(root, 'a.txt', 'needle needle\n');
    write(root, 'node_modules/m/i.js', 'needle\n');
    write(root, '.env', 'needle\n');
    write(root, 'bin.dat', Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0]));
    write(outside, 'secret.txt', 'needle\n');
    symlinkSync(outside, join(root, 'out'));
    const p = await harness(root);
    try {
      const r = (await p.call({ query: 'needle' })).result as FsSearchResult;
      assert.deepEqual(r.matches?.map(at), ['a.txt:1:1-7', 'a.txt:1:8-14', 'b/x.txt:1:1-7']);
      assert.deepEqual(r.skipped, { ignored: 0, generated: 1, binary: 1, secret: 1 });
    } finally {
      await p.close();
      rmSync(root, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
