// The prerequisite check that `npm run setup`, `npm test` and .ci/run share: a missing program is
// one line naming it and its fix, and no test runs; `serve --stdio` at a terminal says what it is.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SYSTEM_PACKAGES } from '../../src/sandbox/install-hint.js';
import { tempDirs } from '../support/fixtures.js';
import { withoutPrograms } from '../support/hidden-programs.js';
// @ts-expect-error: a plain .mjs script (it runs before the build), without type declarations
import { PREREQUISITES } from '../../scripts/prerequisites.mjs';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'dist/src/cli/main.js');

interface Prerequisite {
  readonly program: string;
  readonly debian: string;
  readonly fedora: string;
  readonly arch: string;
}

describe('prerequisites', () => {
  it('the script and the runtime name the same packages for each program', () => {
    const fromScript = Object.fromEntries((PREREQUISITES as Prerequisite[]).map((p) => [p.program, { debian: p.debian, fedora: p.fedora, arch: p.arch }]));
    assert.deepEqual(fromScript, SYSTEM_PACKAGES);
  });

  it('--check with bubblewrap and ripgrep absent: one line each with the fix, exit 1, nothing installed', () => {
    const d = tempDirs('tg-prereq');
    try {
      const [cmd, args] = withoutPrograms(['bwrap', 'rg'], [process.execPath, join(ROOT, 'scripts/prerequisites.mjs'), '--check'], join(d.base, 'hide'));
      const r = spawnSync(cmd, args, { encoding: 'utf8' });
      assert.equal(r.status, 1);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.filter((l) => l.startsWith('toolgate: missing')).length, 2, r.stderr);
      assert.match(r.stderr, /missing 'bwrap' \(package bubblewrap\)/);
      assert.match(r.stderr, /missing 'rg' \(package ripgrep\)/);
      assert.match(r.stderr, /apt-get install -y bubblewrap ripgrep/);
      assert.match(r.stderr, /dnf install -y bubblewrap ripgrep/);
      assert.match(r.stderr, /pacman -S --needed bubblewrap ripgrep/);
      assert.doesNotMatch(r.stderr, /installing/);
    } finally {
      d.cleanup();
    }
  });

  it('the test runner stops before any test when a prerequisite is missing', () => {
    const d = tempDirs('tg-prereq');
    try {
      const [cmd, args] = withoutPrograms(['rg'], [process.execPath, join(ROOT, 'scripts/run-tests.mjs'), 'test/protocol/envelope'], join(d.base, 'hide'));
      const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: ROOT });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /missing prerequisite: 'rg' \(package ripgrep\)/);
      assert.match(r.stderr, /No test was run/);
      assert.doesNotMatch(r.stdout, /ℹ tests/);
    } finally {
      d.cleanup();
    }
  });

  it('serve --stdio started at a terminal prints a one-line hint on stderr, and stays silent on a pipe', () => {
    const d = tempDirs('tg-prereq');
    try {
      const serve = `${process.execPath} ${BIN} serve --stdio --workspace ${d.workspace} --state-dir ${d.state}`;
      const piped = spawnSync('sh', ['-c', `${serve} < /dev/null`], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(piped.status, 0, piped.stderr);
      assert.doesNotMatch(piped.stderr, /meant to be started by an MCP client/);
      // script(1) gives the server a terminal as stdin; Ctrl-D (EOF) then ends it.
      const atTerminal = spawnSync('script', ['-qec', serve, '/dev/null'], { input: '\x04', encoding: 'utf8', timeout: 60_000 });
      assert.match(atTerminal.stdout, /meant to be started by an MCP client/);
    } finally {
      d.cleanup();
    }
  });
});
