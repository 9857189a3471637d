#!/usr/bin/env node
// npm run bench -- NAME [NAME…]: runs bench/NAME/main.ts (all of them without a name).
import { existsSync, readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const names = process.argv.slice(2);
const all = readdirSync('bench', { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(`bench/${d.name}/main.ts`)).map((d) => d.name).sort();
const chosen = names.length ? names : all;
for (const name of chosen) {
  if (!all.includes(name)) {
    console.error(`no benchmark ${name}; have: ${all.join(', ')}`);
    process.exit(2);
  }
  console.log(`\n=== bench/${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}/main.ts`], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
