// Every failure that stops Toolgate before it serves (command line, configuration, grant, policy)
// is one family with a code: the built command prints `toolgate CMD: CODE: message` and exits 2,
// with the command's help only after a usage error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');
const HELP = /\n\ntoolgate call TOOL --args JSON/;

function run(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', input: '' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('each start-up failure prints its code after the command name and exits 2; only usage adds the help', () => {
  const d = tempDirs('tg-startup');
  try {
    const call = (...extra: string[]): string[] => ['call', 'fs.read', '--args', '{"path":"a.txt"}', '--state-dir', d.state, ...extra];
    const file = (name: string, text: string): string => {
      const path = join(d.base, name);
      writeFileSync(path, text);
      return path;
    };
    const cases: { readonly args: string[]; readonly code: string; readonly says: RegExp }[] = [
      { args: ['call', '--bogus'], code: 'usage', says: /Unknown option '--bogus'/ },
      { args: call('--deadline-ms', 'soon'), code: 'usage', says: /--deadline-ms takes a whole number/ },
      { args: call('--config', join(d.base, 'absent.json')), code: 'invalid_config', says: /--config .*absent\.json: no such file/ },
      { args: call('--config', file('not-json.json', '{')), code: 'invalid_config', says: /not-json\.json: not JSON/ },
      { args: call('--config', file('bad.json', JSON.stringify({ limits: { surprise: true } }))), code: 'invalid_config', says: /bad\.json: invalid configuration:\n {2}\/limits\/surprise: unknown field/ },
      { args: call('--grant', join(d.base, 'absent-grant.json')), code: 'invalid_grant', says: /--grant .*absent-grant\.json: ENOENT/ },
      { args: call('--grant', file('g-not-json.json', 'tools: all')), code: 'invalid_grant', says: /--grant .*g-not-json\.json: .*JSON/ },
      { args: call('--grant', file('g-bad.json', JSON.stringify({ budget: { calls: -1 } }))), code: 'invalid_grant', says: /--grant .*g-bad\.json: invalid grant: \/budget\/calls: / },
      { args: call('--policy', join(d.base, 'absent.cedar')), code: 'invalid_policy', says: /--policy .*absent\.cedar: ENOENT/ },
      { args: call('--policy', file('p-bad.cedar', 'permit (principal, action, resource) when { resource.size > 1 };')), code: 'invalid_policy', says: /--policy: .*strict validation.*p-bad\.cedar#0/ },
      { args: call('--policy', file('p-syntax.cedar', 'permit (principal, action, resource')), code: 'invalid_policy', says: /--policy: p-syntax\.cedar: policies do not parse/ },
    ];
    for (const c of cases) {
      const r = run(c.args, d.workspace);
      const label = `${c.args.join(' ')}\n${r.err}`;
      assert.equal(r.code, 2, label);
      assert.equal(r.out, '', label);
      assert.ok(r.err.startsWith(`toolgate call: ${c.code}: `), label);
      assert.match(r.err, c.says, label);
      assert.equal(HELP.test(r.err), c.code === 'usage', `help only after a usage error: ${label}`);
    }
    const unknown = run(['frobnicate'], d.workspace);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /^toolgate: usage: unknown command frobnicate\n\n/);
  } finally {
    d.cleanup();
  }
});

test('serve stops with the same line before it serves: invalid_policy, exit 2, nothing on stdout', () => {
  const d = tempDirs('tg-startup-serve');
  try {
    const bad = join(d.base, 'bad.cedar');
    writeFileSync(bad, 'forbid (principal, action, resource) when { resource.size > 1 };');
    const r = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--policy', bad, '--state-dir', d.state], { cwd: d.workspace, encoding: 'utf8', input: '' });
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /^toolgate serve: invalid_policy: --policy: /);
    assert.equal(r.stdout, '');
  } finally {
    d.cleanup();
  }
});
