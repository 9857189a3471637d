// The design rules of eslint.config.js (DESIGN §2) fire on planted violations and stay quiet on
// allowed imports. The real config is copied into a temporary project with a tiny src/ tree, so
// nothing is written into this repository and every rule sees real files on disk (no-cycle has
// to parse the modules an import reaches).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';

const repo = resolve(import.meta.dirname, '../..');

/** File → source of the planted project. */
const FIXTURE: Record<string, string> = {
  'src/protocol/index.ts': "export { VERSION } from './version.js';\n",
  'src/protocol/version.ts': 'export const VERSION = 1;\n',
  'src/store/index.ts': "export { openTable } from './sqlite/table.js';\n",
  'src/store/sqlite/table.ts': "import { VERSION } from '../../protocol/index.js';\nexport const openTable = (): number => VERSION;\n",
  'src/runtime/index.ts': "export { run } from './clean.js';\n",
  // allowed: another layer through its index, the own folder at any depth, a lower layer
  'src/runtime/clean.ts':
    "import { openTable } from '../store/index.js';\nimport { VERSION } from '../protocol/index.js';\nimport { stage } from './stages/stage.js';\nexport const run = (): number => openTable() + VERSION + stage();\n",
  'src/runtime/stages/stage.ts': "import { openTable } from '../../store/index.js';\nexport const stage = (): number => openTable();\n",
  // planted: a deep import past src/store/index.ts, from the folder and from a sub-folder
  'src/runtime/deep.ts': "import { openTable } from '../store/sqlite/table.js';\nexport const deep = (): number => openTable();\n",
  'src/runtime/stages/deep.ts': "import { VERSION } from '../../protocol/version.js';\nexport const deeper = (): number => VERSION;\n",
  // planted: a cycle of two modules in one folder
  'src/runtime/cycle-a.ts': "import { b } from './cycle-b.js';\nexport const a = (n: number): number => (n > 0 ? b(n - 1) : 0);\n",
  'src/runtime/cycle-b.ts': "import { a } from './cycle-a.js';\nexport const b = (n: number): number => a(n);\n",
  // planted: an upward import (store is below runtime)
  'src/store/upward.ts': "import { run } from '../runtime/index.js';\nexport const upward = (): number => run();\n",
  // tools: the list may import every tool folder; a tool folder its own files only
  'src/tools/index.ts': "import { alpha } from './alpha/tool.js';\nimport { beta } from './beta/tool.js';\nexport const tools = [alpha, beta];\n",
  'src/tools/alpha/tool.ts': "import { limit } from './limits/limit.js';\nimport { openTable } from '../../store/index.js';\nexport const alpha = (): number => limit + openTable();\n",
  'src/tools/alpha/limits/limit.ts': 'export const limit = 3;\n',
  // planted: a tool folder importing another one, and the list of tools
  'src/tools/beta/tool.ts': "import { limit } from '../alpha/limits/limit.js';\nexport const beta = (): number => limit;\n",
  'src/tools/beta/list.ts': "import { tools } from '../index.js';\nexport const count = (): number => tools.length;\n",
  // profiles: the protocol's index only; planted: a profile reaching the store (a lower layer, through its index)
  'src/profiles/index.ts': "import { VERSION } from '../protocol/index.js';\nexport const profileVersion = (): number => VERSION;\n",
  'src/profiles/reach.ts': "import { openTable } from '../store/index.js';\nexport const reach = (): number => openTable();\n",
  // planted: the package entry reaching past an index
  'src/index.ts': "export { run } from './runtime/index.js';\nexport { openTable } from './store/sqlite/table.js';\n",
};

/** File → the rule of each problem it must report, in order; every other file reports none. */
const EXPECTED: Record<string, { rule: string; says: string }[]> = {
  'src/runtime/deep.ts': [{ rule: 'import-x/no-restricted-paths', says: 'deep import: src/runtime may import from src/store only through src/store/index.ts' }],
  'src/runtime/stages/deep.ts': [{ rule: 'import-x/no-restricted-paths', says: 'deep import: src/runtime may import from src/protocol only through src/protocol/index.ts' }],
  'src/runtime/cycle-a.ts': [{ rule: 'import-x/no-cycle', says: 'Dependency cycle' }],
  'src/runtime/cycle-b.ts': [{ rule: 'import-x/no-cycle', says: 'Dependency cycle' }],
  'src/store/upward.ts': [{ rule: 'import-x/no-restricted-paths', says: 'layer direction: src/store may not import from a higher layer' }],
  'src/tools/beta/tool.ts': [{ rule: 'import-x/no-restricted-paths', says: 'sibling tool: src/tools/beta may not import another tool folder' }],
  'src/tools/beta/list.ts': [{ rule: 'import-x/no-restricted-paths', says: 'sibling tool: src/tools/beta may not import another tool folder' }],
  'src/profiles/reach.ts': [{ rule: 'import-x/no-restricted-paths', says: 'profiles: src/profiles may import only src/protocol/index.ts' }],
  'src/index.ts': [{ rule: 'import-x/no-restricted-paths', says: 'deep import: src/index.ts may import a layer only through its index.ts' }],
};

let project = '';
let reported = new Map<string, { rule: string | null; message: string }[]>();

before(async () => {
  project = mkdtempSync(join(tmpdir(), 'toolgate-lint-'));
  copyFileSync(join(repo, 'eslint.config.js'), join(project, 'eslint.config.js'));
  copyFileSync(join(repo, 'tsconfig.json'), join(project, 'tsconfig.json'));
  symlinkSync(join(repo, 'node_modules'), join(project, 'node_modules'), 'dir');
  // as in the repository: without it the loader of the test runner (tsx) reads the config as CommonJS
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'lint-fixture', private: true, type: 'module' }));
  for (const [file, source] of Object.entries(FIXTURE)) {
    mkdirSync(dirname(join(project, file)), { recursive: true });
    writeFileSync(join(project, file), source);
  }
  const eslint = new ESLint({ cwd: project });
  const results = await eslint.lintFiles(['src']);
  reported = new Map(
    results.map((r) => [relative(project, r.filePath), r.messages.map((m) => ({ rule: m.ruleId, message: m.message }))]),
  );
});

after(() => {
  if (project !== '') rmSync(project, { recursive: true, force: true });
});

test('every planted file was linted', () => {
  assert.deepEqual([...reported.keys()].sort(), Object.keys(FIXTURE).sort());
});

for (const [file, expected] of Object.entries(EXPECTED)) {
  test(`lint reports ${file} with ${expected.map((e) => e.rule).join(', ')}`, () => {
    const got = reported.get(file) ?? [];
    assert.equal(got.length, expected.length, JSON.stringify(got));
    expected.forEach((e, i) => {
      assert.equal(got[i]?.rule, e.rule, JSON.stringify(got));
      assert.ok(got[i]?.message.includes(e.says), `${got[i]?.message} should say ${e.says}`);
    });
  });
}

test('lint reports nothing in the allowed imports (own folder at any depth, another layer through its index, the list of tools)', () => {
  const clean = Object.keys(FIXTURE).filter((file) => !(file in EXPECTED));
  assert.ok(clean.includes('src/runtime/clean.ts') && clean.includes('src/tools/alpha/tool.ts') && clean.includes('src/tools/index.ts') && clean.includes('src/profiles/index.ts'));
  for (const file of clean) assert.deepEqual(reported.get(file), [], file);
});
