#!/usr/bin/env node
// The system programs Toolgate's sandbox, search and tests need, checked in one place.
// `npm run setup`, `npm test` and .ci/run all start here, so a missing program is one line with
// its fix before anything else runs, not a cascade of failing tests.
//
//   node scripts/prerequisites.mjs            install what is missing when root with apt-get,
//                                             otherwise print the install command and exit 1
//   node scripts/prerequisites.mjs --check    never install: print what is missing, exit 1 if any
//
// Only Node's own modules: it runs before `npm ci` has installed anything.
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { postgresBinDir } from './postgres-cluster.mjs';

/**
 * Program → package, per distribution. Kept in step with src/sandbox/install-hint.ts (the text a
 * model or `toolgate doctor` shows); test/package/prerequisites.test.ts checks the two agree.
 */
export const PREREQUISITES = [
  { program: 'bwrap', why: 'the shell.exec sandbox', debian: 'bubblewrap', fedora: 'bubblewrap', arch: 'bubblewrap' },
  { program: 'rg', why: 'the fast fs.search engine', debian: 'ripgrep', fedora: 'ripgrep', arch: 'ripgrep' },
  { program: 'git', why: 'workspace revisions and search', debian: 'git', fedora: 'git', arch: 'git' },
  { program: 'script', why: 'shell.exec with a terminal (pty)', debian: 'bsdutils', fedora: 'util-linux-script', arch: 'util-linux' },
  // The network tests: namespaces and veth pairs they create (iproute2 is not in Debian's minimal
  // images), and curl as the HTTP client inside the sandbox (node's fetch ignores proxy variables).
  { program: 'ip', why: "the network tests' namespaces (ip netns)", debian: 'iproute2', fedora: 'iproute', arch: 'iproute2', find: () => onPath('ip', `/usr/sbin:/sbin:${process.env.PATH ?? ''}`) },
  { program: 'curl', why: 'the HTTP client of the network tests inside the sandbox', debian: 'curl', fedora: 'curl', arch: 'curl' },
  // Debian keeps the server programs off PATH, in /usr/lib/postgresql/<version>/bin.
  { program: 'initdb', why: "the tests' private PostgreSQL cluster", debian: 'postgresql', fedora: 'postgresql-server', arch: 'postgresql', find: postgresBinDir },
  { program: 'strace', why: "the tests' execve tracer (shell intent against what really runs)", debian: 'strace', fedora: 'strace', arch: 'strace' },
  // The browser the web view's tests drive (playwright-core, never a browser it downloads); its
  // fonts come with it (libfontconfig1 → fontconfig-config → fonts-dejavu-core).
  { program: 'chromium', why: "the web view's end-to-end tests (toolgate ui in headless Chromium)", debian: 'chromium', fedora: 'chromium', arch: 'chromium' },
];

function onPath(program, path = process.env.PATH ?? '/usr/bin:/bin') {
  for (const dir of ['/usr/bin', ...path.split(delimiter).filter(Boolean)]) {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return join(dir, program);
    } catch {
      // next directory
    }
  }
  return null;
}

export function missingPrerequisites() {
  return PREREQUISITES.filter((p) => (p.find ? p.find() : onPath(p.program)) === null);
}

/** The exact command for each family of distributions, for what is missing. */
export function installCommands(missing) {
  const of = (key) => [...new Set(missing.map((p) => p[key]))].join(' ');
  return [
    `Debian/Ubuntu: sudo apt-get update && sudo apt-get install -y ${of('debian')}`,
    `Fedora:        sudo dnf install -y ${of('fedora')}`,
    `Arch:          sudo pacman -S --needed ${of('arch')}`,
  ];
}

/** For runners that must not install: one line per missing program and the fix; false if any. */
export function reportMissing() {
  const missing = missingPrerequisites();
  for (const p of missing) console.error(`missing prerequisite: '${p.program}' (package ${p.debian}), needed for ${p.why}`);
  if (missing.length > 0) for (const line of installCommands(missing)) console.error(`  ${line}`);
  return missing.length === 0;
}

function isDebianLike() {
  try {
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

function aptInstall(packages) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const argv of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...packages]]) {
    const r = spawnSync('apt-get', argv, { stdio: ['ignore', 'inherit', 'inherit'], env });
    if (r.status !== 0) return false;
  }
  return true;
}

function main(args) {
  const checkOnly = args.includes('--check');
  let missing = missingPrerequisites();
  if (missing.length === 0) return 0;
  const canInstall = !checkOnly && process.getuid?.() === 0 && isDebianLike() && onPath('apt-get') !== null;
  if (canInstall) {
    const packages = [...new Set(missing.map((p) => p.debian))];
    console.error(`toolgate: installing ${packages.join(', ')} with apt-get (needed for ${missing.map((p) => p.why).join('; ')})`);
    if (aptInstall(packages)) missing = missingPrerequisites();
  }
  if (missing.length === 0) return 0;
  for (const p of missing) console.error(`toolgate: missing '${p.program}' (package ${p.debian}), needed for ${p.why}`);
  console.error('Install them, then run the command again:');
  for (const line of installCommands(missing)) console.error(`  ${line}`);
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) process.exit(main(process.argv.slice(2)));
