#!/usr/bin/env node
// npm run test:node-versions: the MCP server, the CLI and one call of every tool on Node 22 and
// 24 (the Node versions users run), beside the full suite on the machine's own Node.
//
// The Node builds are the official Linux x64 ones, pinned in scripts/node-versions/binaries'
// lock and installed from the npm registry. better-sqlite3 is compiled once per Node ABI (against
// that build's own headers, so nothing is downloaded) and cached; each run works in a hard-linked
// copy of the checkout whose better-sqlite3 carries the binary for that Node, so the checkout's
// own node_modules stays built for the machine's Node. ast-grep and Cedar are N-API and
// WebAssembly: the same files load on every Node, which these runs prove.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { reportMissing } from './prerequisites.mjs';
import { NODE22_DIR, ensureNode22Tools } from './node-versions/tools.mjs';
import { testEnv } from './test-env.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BINARIES = join(ROOT, 'scripts/node-versions/binaries');
const WORK = join(ROOT, '.node-versions-work');
const VERSIONS = ['node22', 'node24'];
const FILES = [
  'test/package/every-tool.test.ts',
  'test/package/without-extras.test.ts',
  'test/server/stdio.test.ts',
  'test/server/http.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/cli.test.ts',
  `${NODE22_DIR}/inspector.test.ts`,
  `${NODE22_DIR}/conformance.test.ts`,
];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}`);
  return r;
}

/** Whether `node` can load the addon at `file` (a binary built for another ABI throws). */
function loads(node, file) {
  return spawnSync(node, ['-e', 'process.dlopen({ exports: {} }, process.argv[1])', file], { stdio: 'ignore' }).status === 0;
}

/** better_sqlite3.node for this Node's ABI, built once from the checkout's better-sqlite3 sources. */
function sqliteBinding(nodeDir, node) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'));
  const abi = spawnSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).stdout.trim();
  const cacheBase = process.env.XDG_CACHE_HOME && process.env.XDG_CACHE_HOME.startsWith('/') ? process.env.XDG_CACHE_HOME : join(homedir(), '.cache');
  const cached = join(cacheBase, 'toolgate', `better-sqlite3-${pkg.version}-abi${abi}.node`);
  if (existsSync(cached) && loads(node, cached)) return cached;
  const src = join(WORK, `build-better-sqlite3-abi${abi}`);
  rmSync(src, { recursive: true, force: true });
  cpSync(join(ROOT, 'node_modules/better-sqlite3'), src, { recursive: true, filter: (p) => !p.includes('/build/') && !p.endsWith('/build') });
  const npmRoot = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout.trim();
  const gyp = join(npmRoot, 'npm/node_modules/node-gyp/bin/node-gyp.js');
  console.log(`building better-sqlite3 ${pkg.version} for ABI ${abi} (once; cached in ${cached})`);
  // node-gyp takes npm_config_* from the environment over its flags, and `npm run` passes the
  // user's (a machine set up to build offline for its own Node has nodedir=/usr): drop them all.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_config_')));
  run(node, [gyp, 'rebuild', '--release', '--loglevel=error', `--nodedir=${nodeDir}`], {
    cwd: src,
    env: { ...env, npm_config_nodedir: nodeDir, PATH: `${dirname(node)}:${process.env.PATH}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const built = join(src, 'build/Release/better_sqlite3.node');
  if (!loads(node, built)) throw new Error(`better-sqlite3 built in ${src} does not load on ${node}`);
  mkdirSync(dirname(cached), { recursive: true });
  cpSync(built, cached);
  rmSync(src, { recursive: true, force: true });
  return cached;
}

/** A hard-linked copy of the checkout whose better-sqlite3 loads `binding`. */
function workCopy(name, binding) {
  const dir = join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const entry of ['dist', 'node_modules', 'package.json', 'scripts', 'src', 'test', 'tsconfig.json', 'schemas', 'policies']) {
    if (!existsSync(join(ROOT, entry))) continue;
    // Hard links: seconds, not minutes, and no extra space.
    run('cp', ['-al', join(ROOT, entry), dir]);
  }
  const build = join(dir, 'node_modules/better-sqlite3/build');
  rmSync(build, { recursive: true, force: true });
  mkdirSync(join(build, 'Release'), { recursive: true });
  cpSync(binding, join(build, 'Release/better_sqlite3.node'));
  return dir;
}

function main() {
  if (!reportMissing()) return 1;
  if (!existsSync(join(ROOT, 'dist/src/cli/main.js'))) run('npm', ['run', 'build'], { cwd: ROOT });
  if (!existsSync(join(BINARIES, 'node_modules/.package-lock.json'))) run('npm', ['ci', '--prefix', BINARIES, '--no-audit', '--no-fund']);
  mkdirSync(WORK, { recursive: true });
  let failed = 0;
  try {
    for (const v of VERSIONS) {
      const nodeDir = join(BINARIES, 'node_modules', v);
      const node = join(nodeDir, 'bin/node');
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      console.log(`\n=== Node ${version}: MCP, CLI and every tool ===`);
      if (!ensureNode22Tools(node)) return 1;
      const dir = workCopy(v, sqliteBinding(nodeDir, node));
      const r = spawnSync(node, ['--import', 'tsx', '--test', '--test-reporter=spec', ...FILES], {
        cwd: dir,
        stdio: 'inherit',
        env: { ...testEnv(), PATH: `${dirname(node)}:${process.env.PATH}` },
      });
      console.log(`=== Node ${version}: ${r.status === 0 ? 'passed' : `FAILED (exit ${r.status ?? r.signal})`} ===`);
      if (r.status !== 0) failed++;
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(WORK, { recursive: true, force: true });
  }
  return failed === 0 ? 0 : 1;
}

process.exit(main());
