import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

interface Report {
  ok: boolean;
  checks: { name: string; ok: boolean; required: boolean; detail: string; fix?: string }[];
}

function doctor(args: string[], cwd: string): { code: number | null; report: Report } {
  const r = spawnSync(process.execPath, [BIN, 'doctor', '--json', ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, report: JSON.parse(r.stdout) as Report };
}

test('toolgate doctor checks node, the sandbox really starting, tools, state dir and SQLite', () => {
  const d = tempDirs();
  try {
    const { code, report } = doctor(['--state-dir', d.state], d.workspace);
    const names = report.checks.map((c) => c.name);
    for (const n of ['node', 'bubblewrap', 'namespace sandbox', 'cgroups', 'git', 'rg', 'state dir', 'sqlite']) assert.ok(names.includes(n), n);
    // CI installs bubblewrap, git and ripgrep: on this kind of machine every required check holds.
    assert.equal(code, 0, JSON.stringify(report.checks.filter((c) => !c.ok)));
    assert.equal(report.ok, true);
  } finally {
    d.cleanup();
  }
});

test('a failing required check is FAIL with its fix, and exit 1', () => {
  const d = tempDirs();
  try {
    // A state dir beneath a regular file cannot be created.
    writeFileSync(join(d.base, 'a-file'), '');
    const bad = join(d.base, 'a-file', 'state');
    const { code, report } = doctor(['--state-dir', bad], d.workspace);
    assert.equal(code, 1);
    const state = report.checks.find((c) => c.name === 'state dir');
    assert.equal(state?.ok, false);
    assert.ok(state?.fix);
    const human = spawnSync(process.execPath, [BIN, 'doctor', '--state-dir', bad], { cwd: d.workspace, encoding: 'utf8' });
    assert.match(human.stdout, /^FAIL {2}state dir/m);
    assert.match(human.stdout, /fix: /);
  } finally {
    d.cleanup();
  }
});
