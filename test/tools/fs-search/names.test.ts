// Filename mode behaves like `find -name` (an exact name, or a glob on the name) and symbol mode
// accepts `Class.method`, answering with the container and the definition's last line.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, harness, write, type Harness } from './fixture.js';
import type { FsSearchResult, SearchMatch } from '../../../src/tools/fs-search/schema.js';

const NEAR_NAMES = [
  'config.py',
  'config.pyc',
  'test_config.py',
  'pkg/config.py',
  'pkg/config.py.bak',
  'pkg/myconfig.py',
  'pkg/Config.py',
  'docs/config.py.md',
  'setup.cfg',
  'tests/test_setup.py',
  'tests/conftest.py',
  'src/index.ts',
  'src/index.test.ts',
  'src/lib/index.ts',
  'README.md',
  'README.md.orig',
];

const PY = [
  'class Loader:',
  '    """Loads things."""',
  '',
  '    def load(self, path):',
  '        return open(path)',
  '',
  '    class Inner:',
  '        def load(self):',
  '            pass',
  '',
  'def load():',
  '    return None',
  '',
].join('\n');

const TS = [
  'export class ConfigStore {',
  '  load(): void {',
  '    return;',
  '  }',
  '  save(): void {}',
  '}',
  'export function load(): number {',
  '  return 1;',
  '}',
  'export namespace Outer {',
  '  export class Store {',
  '    load() {',
  '      return 2;',
  '    }',
  '  }',
  '}',
  '',
].join('\n');

let h: Harness;
before(async () => {
  const root = mkdtempSync(join(tmpdir(), 'fs-search-names-'));
  for (const p of NEAR_NAMES) write(root, p, `# ${p}\n`);
  write(root, 'py/loader.py', PY);
  write(root, 'ts/store.ts', TS);
  write(root, 'go/server.go', ['package main', 'type Server struct{}', 'func (s *Server) Serve() {', '}', 'func Serve() {}', ''].join('\n'));
  write(root, 'rs/parser.rs', ['pub struct Parser;', 'impl<T> Parser {', '    pub fn parse(&self) {', '    }', '}', 'fn parse() {}', ''].join('\n'));
  git(root, 'init', '-q');
  h = await harness(root);
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

/** What `find . -name NAME -type f` answers, workspace-relative and sorted. */
function findName(name: string, nocase = false): string[] {
  const out = execFileSync('find', ['.', '-path', './.git', '-prune', '-o', '-type', 'f', nocase ? '-iname' : '-name', name, '-print'], { cwd: h.root, encoding: 'utf8' });
  return out
    .split('\n')
    .filter(Boolean)
    .map((p) => p.slice(2))
    .sort();
}

describe('fs.search filename mode, like find -name', () => {
  const lookups = ['config.py', 'config.pyc', 'test_config.py', 'index.ts', 'README.md', 'conftest.py', 'setup.cfg', 'Config.py', '*.py', 'config.*', 'test_*.py', '*.ts', 'index.*.ts', '[Cc]onfig.py', 'missing.py'];
  for (const name of lookups) {
    it(`${name}: the same files as find -name`, async () => {
      const r = await search({ mode: 'filename', query: name, output: 'paths_only', max_results: 1000 });
      assert.deepEqual([...(r.paths ?? [])].sort(), findName(name));
    });
  }

  it('case_sensitive: false is find -iname', async () => {
    const r = await search({ mode: 'filename', query: 'config.py', case_sensitive: false, output: 'paths_only' });
    assert.deepEqual([...(r.paths ?? [])].sort(), findName('config.py', true));
  });

  it('an exact name hit covers the file name; a name with a slash is a path suffix', async () => {
    const r = await search({ mode: 'filename', query: 'config.py' });
    assert.deepEqual(
      r.matches?.map((m) => `${m.path}:${m.column}-${m.end_column}`),
      ['config.py:1-10', 'pkg/config.py:5-14'],
    );
    const p = await search({ mode: 'filename', query: 'lib/index.ts', output: 'paths_only' });
    assert.deepEqual(p.paths, ['src/lib/index.ts']);
    const whole = await search({ mode: 'filename', query: 'src/index.ts', output: 'paths_only' });
    assert.deepEqual(whole.paths, ['src/index.ts']);
  });

  it("filename_match: 'substring' keeps the old any-part-of-the-path search", async () => {
    const r = await search({ mode: 'filename', query: 'config.py', filename_match: 'substring', output: 'paths_only' });
    assert.deepEqual(r.paths, ['config.py', 'config.pyc', 'docs/config.py.md', 'pkg/config.py', 'pkg/config.py.bak', 'pkg/myconfig.py', 'test_config.py']);
  });
});

const sym = (m: SearchMatch): string => `${m.path}:${m.line}-${m.end_line} ${m.kind} ${m.container ?? '-'}`;

describe('fs.search symbol mode with containers', () => {
  it('Python: Class.method finds the method only, with its container and end line', async () => {
    const r = await search({ mode: 'symbol', query: 'Loader.load' });
    assert.deepEqual(r.matches?.map(sym), ['py/loader.py:4-5 method Loader']);
    const nested = await search({ mode: 'symbol', query: 'Loader.Inner.load' });
    assert.deepEqual(nested.matches?.map(sym), ['py/loader.py:8-9 method Loader.Inner']);
    const inner = await search({ mode: 'symbol', query: 'Inner.load' });
    assert.deepEqual(inner.matches?.map(sym), ['py/loader.py:8-9 method Loader.Inner']);
  });

  it('TypeScript: Class.method and Namespace.Class.method', async () => {
    const r = await search({ mode: 'symbol', query: 'ConfigStore.load' });
    assert.deepEqual(r.matches?.map(sym), ['ts/store.ts:2-4 method ConfigStore']);
    const ns = await search({ mode: 'symbol', query: 'Outer.Store.load' });
    assert.deepEqual(ns.matches?.map(sym), ['ts/store.ts:12-14 method Outer.Store']);
  });

  it("Go: a method's receiver type is its container; Rust: an impl's type, with . or ::", async () => {
    const go = await search({ mode: 'symbol', query: 'Server.Serve' });
    assert.deepEqual(go.matches?.map(sym), ['go/server.go:3-4 method Server']);
    for (const query of ['Parser.parse', 'Parser::parse']) {
      const rs = await search({ mode: 'symbol', query });
      assert.deepEqual(rs.matches?.map(sym), ['rs/parser.rs:3-4 method Parser'], query);
    }
  });

  it('a bare name still finds every definition, each with its container (none at top level)', async () => {
    const r = await search({ mode: 'symbol', query: 'load' });
    assert.deepEqual(r.matches?.map(sym), [
      'py/loader.py:4-5 method Loader',
      'py/loader.py:8-9 method Loader.Inner',
      'py/loader.py:11-12 function -',
      'ts/store.ts:2-4 method ConfigStore',
      'ts/store.ts:7-9 function -',
      'ts/store.ts:12-14 method Outer.Store',
    ]);
  });

  it('a container that does not enclose the name finds nothing; a malformed query is invalid_arguments', async () => {
    const none = await search({ mode: 'symbol', query: 'Missing.load' });
    assert.deepEqual(none.matches, []);
    const r = await h.call({ mode: 'symbol', query: 'Loader..load' });
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'invalid_arguments');
    assert.match(r.error?.message ?? '', /Class\.method|ConfigStore\.load/);
  });
});
