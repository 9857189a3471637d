#!/usr/bin/env node
// Runs every test file under test/ with Node's own runner (tsx loads the TypeScript).
// Node 20's --test does not expand globs, so the list is built here, sorted for a stable order.
//
// Prerequisites come first: a missing bubblewrap or ripgrep is one line with its fix, not dozens
// of failing tests. test/node22/ holds tests of tools that need Node >= 22 (the MCP Inspector,
// the conformance suite): on older Node they are left to `npm run test:node-versions`, and this
// says so; on Node >= 22 they run here, their tools installed from their own lock.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { reportMissing } from './prerequisites.mjs';
import { NODE22_DIR, ensureNode22Tools } from './node-versions/tools.mjs';
import { testEnv } from './test-env.mjs';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    if (name === 'node_modules') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

if (!reportMissing()) {
  console.error('No test was run. `npm test` installs these itself when run as root on Debian/Ubuntu.');
  process.exit(1);
}

const filter = process.argv.slice(2);
let files = collect('test').filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)));
const major = Number(process.versions.node.split('.')[0]);
const node22 = files.filter((f) => f.startsWith(`${NODE22_DIR}/`));
if (node22.length > 0 && major < 22) {
  files = files.filter((f) => !node22.includes(f));
  console.log(`${node22.length} test file(s) in ${NODE22_DIR}/ need Node >= 22 (this is ${process.version}); \`npm run test:node-versions\` runs them on Node 22 and 24.`);
} else if (node22.length > 0 && !ensureNode22Tools(process.execPath)) {
  process.exit(1);
}
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
if (!existsSync('dist/src/cli/main.js')) console.error('note: dist/ is missing; tests that run the built CLI need `npm run build` first');
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: testEnv(),
});
process.exit(r.status ?? 1);
