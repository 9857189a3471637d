#!/usr/bin/env node
// Runs every test file under test/ with Node's own runner (tsx loads the TypeScript).
// Node 20's --test does not expand globs, so the list is built here, sorted for a stable order.
//
// Prerequisites come first: a missing bubblewrap or ripgrep is one line with its fix, not dozens
// of failing tests. test/node22/ holds tests of tools that need Node >= 22 (the MCP Inspector,
// the conformance suite): on older Node they are left to `npm run test:node-versions`, and this
// says so; on Node >= 22 they run here, their tools installed from their own lock.
//
// One private PostgreSQL cluster serves the whole run (scripts/postgres-cluster.mjs): its URL goes
// to the tests in TOOLGATE_TEST_PG_URL, and it is stopped and removed at the end, also when the run
// fails or is interrupted. When TOOLGATE_TEST_PG_URL is already set, that server is used instead.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { reportMissing } from './prerequisites.mjs';
import { NODE22_DIR, ensureNode22Tools } from './node-versions/tools.mjs';
import { testEnv } from './test-env.mjs';
import { TEST_PG_URL_ENV, startPostgresCluster } from './postgres-cluster.mjs';

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
const env = testEnv();
// Signals are taken from here on, so that one arriving while the cluster starts (synchronous
// code, during which no handler runs) does not kill this process and leave the server running:
// it is acted on as soon as the start returns.
let interrupted = null;
let child = null;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    interrupted ??= signal;
    // The tests get the signal; the cleanup below runs when they have ended.
    child?.kill(signal);
  });
}
let cluster = null;
if (!env[TEST_PG_URL_ENV]) {
  try {
    cluster = startPostgresCluster({ prefix: 'toolgate-test-pg-' });
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    console.error('No test was run.');
    process.exit(1);
  }
  env[TEST_PG_URL_ENV] = cluster.url;
}
if (interrupted !== null) {
  cluster?.stop();
  process.exit(130);
}
// Test files run side by side (most of a file's time is waiting on processes, fsync and
// servers, not CPU): TOOLGATE_TEST_CONCURRENCY, default 3. Tests do not assume they run alone.
const concurrency = Number(process.env['TOOLGATE_TEST_CONCURRENCY'] ?? 3);
child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], { stdio: 'inherit', env });
child.on('error', (e) => {
  console.error(`cannot run the tests: ${e.message}`);
  cluster?.stop();
  process.exit(1);
});
child.on('exit', (code, signal) => {
  cluster?.stop();
  process.exit(code ?? (signal ? 128 : 1));
});
