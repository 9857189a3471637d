import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { configSchema } from '../../src/cli/config.js';
import { tempDirs, envelope, testRuntime } from '../support/fixtures.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

function run(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('the published JSON Schema is the one the loader enforces', () => {
  const published = JSON.parse(readFileSync('schemas/config.schema.json', 'utf8')) as Record<string, unknown>;
  const generated = z.toJSONSchema(configSchema, { io: 'input' }) as Record<string, unknown>;
  assert.deepEqual(published['properties'], generated['properties']);
  assert.equal(published['additionalProperties'], false);
});

test('toolgate.config.json in the workspace sets the state dir; a flag overrides it', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ state_dir: '../from-config', limits: { concurrency: 2 } }));
    assert.equal(run(['call', 'fs.read', '--args', '{"path":"a.txt"}'], d.workspace).code, 0);
    assert.ok(existsSync(join(d.base, 'from-config', 'toolgate.db')), 'state dir from the config, relative to the file');
    assert.equal(run(['call', 'fs.read', '--args', '{"path":"a.txt"}', '--state-dir', d.state], d.workspace).code, 0);
    assert.ok(existsSync(join(d.state, 'toolgate.db')), 'the flag wins');
  } finally {
    d.cleanup();
  }
});

test('an invalid configuration is a usage error naming the file and the pointer', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ limits: { concurrency: 0, surprise: true } }));
    const r = run(['call', 'fs.read', '--args', '{"path":"a.txt"}', '--state-dir', d.state], d.workspace);
    assert.equal(r.code, 2);
    assert.match(r.err, /toolgate\.config\.json: invalid configuration/);
    assert.match(r.err, /\/limits\/concurrency/);
    assert.match(r.err, /\/limits\/surprise: unknown field/);
    const missing = run(['call', 'fs.read', '--config', join(d.base, 'nope.json'), '--state-dir', d.state], d.workspace);
    assert.equal(missing.code, 2);
  } finally {
    d.cleanup();
  }
});

test('an agent cannot rewrite toolgate.config.json through the tools', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'toolgate.config.json'), '{}');
    const r = await rt.call(envelope('fs.write', { path: 'toolgate.config.json', content: '{"state_dir":"/tmp/x"}', mode: 'create_or_replace' }));
    assert.equal(r.status, 'denied');
    assert.equal(r.error?.code, 'policy_denied');
    assert.equal(readFileSync(join(workspace, 'toolgate.config.json'), 'utf8'), '{}');
  } finally {
    await done();
  }
});

test('a grant named in the configuration is issued to new tasks', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    writeFileSync(join(d.base, 'reviewer.grant.json'), JSON.stringify({ tools: ['fs.read'], effects: ['read'], read: ['**'] }));
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ state_dir: '../state', grant: '../reviewer.grant.json' }));
    assert.equal(run(['call', 'fs.read', '--args', '{"path":"a.txt"}'], d.workspace).code, 0);
    const write = run(['call', 'fs.write', '--args', '{"path":"b.txt","content":"x","mode":"create"}'], d.workspace);
    assert.equal(write.code, 1);
    assert.equal((JSON.parse(write.out) as { error: { code: string } }).error.code, 'policy_denied');
    assert.ok(!existsSync(join(d.workspace, 'b.txt')));
  } finally {
    d.cleanup();
  }
});

test('a grant named by the configuration inside the workspace refuses the start with a typed error', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    // What an agent writes with fs.write or shell.exec: a wide grant it chose, next to the config.
    writeFileSync(join(d.workspace, 'wide.json'), JSON.stringify({ tools: ['*'], effects: ['read', 'write', 'execute', 'network'], read: ['**'], write: ['**'], hosts: ['*'] }));
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ state_dir: '../state', grant: 'wide.json' }));
    const r = run(['call', 'fs.read', '--args', '{"path":"a.txt"}'], d.workspace);
    assert.equal(r.code, 1);
    const error = (JSON.parse(r.err) as { error: { code: string; data: Record<string, unknown> } }).error;
    assert.equal(error.code, 'invalid_resource');
    assert.equal(error.data['option'], 'grant');
    assert.equal(error.data['reason'], 'inside_workspace');
    assert.ok(!existsSync(join(d.base, 'state', 'toolgate.db')), 'refused before the runtime opened');
    // Policies too, and a link in the workspace to a file outside (the link can be replaced).
    writeFileSync(join(d.base, 'p.cedar'), 'permit (principal, action, resource);');
    symlinkSync(join(d.base, 'p.cedar'), join(d.workspace, 'p.cedar'));
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ state_dir: '../state', policies: ['p.cedar'] }));
    const p = run(['call', 'fs.read', '--args', '{"path":"a.txt"}'], d.workspace);
    assert.equal(p.code, 1);
    assert.equal((JSON.parse(p.err) as { error: { data: Record<string, unknown> } }).error.data['option'], 'policy');
  } finally {
    d.cleanup();
  }
});

test('an empty toolgate.config.json that is not a placeholder is a usage error', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'toolgate.config.json'), '');
    const r = run(['call', 'fs.read', '--args', '{"path":"a.txt"}', '--state-dir', d.state], d.workspace);
    assert.equal(r.code, 2);
    assert.match(r.err, /toolgate\.config\.json: empty; remove it/);
  } finally {
    d.cleanup();
  }
});

test('placeholders a killed runtime left (.git, toolgate.config.json) read as absent and the next runtime sweeps them', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    // What a SIGKILLed runtime leaves: empty mode-0000 files stamped with its (now gone) pid.
    const dead = spawnSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }).stdout.trim();
    for (const name of ['.git', 'toolgate.config.json']) {
      writeFileSync(join(d.workspace, name), '', { mode: 0o000 });
      utimesSync(join(d.workspace, name), new Date(), Number(dead));
    }
    const r = run(['call', 'fs.read', '--args', '{"path":"a.txt"}', '--state-dir', d.state], d.workspace);
    assert.equal(r.code, 0, r.err);
    const sh = run(['call', 'shell.exec', '--args', '{"argv":["true"]}', '--state-dir', d.state], d.workspace);
    assert.equal(sh.code, 0, sh.err);
    assert.equal(existsSync(join(d.workspace, '.git')), false);
    assert.equal(existsSync(join(d.workspace, 'toolgate.config.json')), false);
    // A live owner's placeholder stays (its run still masks it).
    writeFileSync(join(d.workspace, '.git'), '', { mode: 0o000 });
    utimesSync(join(d.workspace, '.git'), new Date(), process.pid);
    const again = run(['call', 'shell.exec', '--args', '{"argv":["true"]}', '--state-dir', d.state], d.workspace);
    assert.equal(again.code, 0, again.err);
    assert.equal(existsSync(join(d.workspace, '.git')), true);
  } finally {
    d.cleanup();
  }
});
