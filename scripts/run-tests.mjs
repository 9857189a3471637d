#!/usr/bin/env node
// Runs every test file under test/ with Node's own runner (tsx loads the TypeScript).
// Node 20's --test does not expand globs, so the list is built here, sorted for a stable order.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filter = process.argv.slice(2);
const files = collect('test').filter((f) => filter.length === 0 || filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, TOOLGATE_TEST: '1' },
});
process.exit(r.status ?? 1);
