// The built command, run as a real child process, as a user would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDirs } from '../support/fixtures.js';
import { digestOf } from '../../src/protocol/index.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

function run(args: string[], cwd: string, input?: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', input });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('toolgate call prints the receipt and exits 0 on success, 1 otherwise, 2 on usage errors', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
    const ok = run(['call', 'fs.read', '--args', '{"path":"a.txt"}', '--state-dir', d.state, '--task', 'cli-task'], d.workspace);
    assert.equal(ok.code, 0, ok.err);
    const receipt = JSON.parse(ok.out) as { status: string; result: { content: string }; receipt_id: string; task_id: string };
    assert.equal(receipt.status, 'succeeded');
    assert.equal(receipt.result.content, 'hello\n');
    assert.equal(receipt.task_id, 'cli-task');

    const denied = run(['call', 'fs.read', '--args', '{"path":"../x"}', '--state-dir', d.state], d.workspace);
    assert.equal(denied.code, 1);
    assert.equal((JSON.parse(denied.out) as { error: { code: string } }).error.code, 'path_escape');

    const usage = run(['call', 'fs.read', '--args', '{not json', '--state-dir', d.state], d.workspace);
    assert.equal(usage.code, 2);
    assert.match(usage.err, /--args: not JSON/);
    assert.equal(run(['call', '--bogus'], d.workspace).code, 2);
    assert.equal(run(['frobnicate'], d.workspace).code, 2);

    const shown = run(['receipts', 'show', receipt.receipt_id, '--state-dir', d.state], d.workspace);
    assert.equal(shown.code, 0);
    assert.equal((JSON.parse(shown.out) as { receipt_id: string }).receipt_id, receipt.receipt_id);
    const listed = run(['receipts', 'list', '--json', '--task', 'cli-task', '--state-dir', d.state], d.workspace);
    assert.deepEqual((JSON.parse(listed.out) as { receipt_id: string }[]).map((r) => r.receipt_id), [receipt.receipt_id]);
  } finally {
    d.cleanup();
  }
});

test('toolgate call --envelope takes a full envelope, and a repeated key replays', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'x\n');
    const env = { protocol_version: 'tool-call.v1', task_id: 't', tool: 'fs.read', arguments: { path: 'a.txt' }, idempotency_key: 'k1' };
    const first = run(['call', '--envelope', '-', '--state-dir', d.state], d.workspace, JSON.stringify(env));
    const second = run(['call', '--envelope', '-', '--state-dir', d.state], d.workspace, JSON.stringify(env));
    const a = JSON.parse(first.out) as { receipt_id: string; replay: boolean };
    const b = JSON.parse(second.out) as { receipt_id: string; replay: boolean };
    assert.equal(a.replay, false);
    assert.equal(b.replay, true);
    assert.equal(a.receipt_id, b.receipt_id);
    const withCap = run(['call', '--envelope', '-', '--state-dir', d.state], d.workspace, JSON.stringify({ ...env, capability_id: 'root' }));
    assert.equal(withCap.code, 1);
    assert.equal((JSON.parse(withCap.out) as { error: { code: string } }).error.code, 'invalid_request');
  } finally {
    d.cleanup();
  }
});

test('toolgate audit verify exits 0 on an intact chain and 1 naming a broken link', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'x\n');
    for (let i = 0; i < 3; i++) run(['call', 'fs.read', '--args', '{"path":"a.txt"}', '--task', 'T', '--state-dir', d.state], d.workspace);
    assert.equal(run(['audit', 'verify', '--state-dir', d.state], d.workspace).code, 0);
    const db = new Database(join(d.state, 'toolgate.db'));
    db.exec(`DROP TRIGGER receipts_immutable_update; UPDATE receipts SET status = 'failed' WHERE seq = 2`);
    db.close();
    const broken = run(['audit', 'verify', '--state-dir', d.state], d.workspace);
    assert.equal(broken.code, 1);
    assert.match(broken.out, /task T: receipt #2/);
  } finally {
    d.cleanup();
  }
});

test('toolgate registry export writes the revision with every tool schema', () => {
  const d = tempDirs();
  try {
    const r = run(['registry', 'export'], d.workspace);
    assert.equal(r.code, 0);
    const m = JSON.parse(r.out) as { format: string; revision: string; tools: { name: string }[] };
    assert.equal(m.format, 'toolgate.registry.v1');
    assert.match(m.revision, /^sha256:[0-9a-f]{64}$/);
    assert.ok(m.tools.some((t) => t.name === 'fs.read'));
  } finally {
    d.cleanup();
  }
});

test('--help works for every command', () => {
  const d = tempDirs();
  try {
    for (const c of ['call', 'receipts', 'audit', 'reconcile', 'registry']) {
      const r = run([c, '--help'], d.workspace);
      assert.equal(r.code, 0, c);
      assert.match(r.out, new RegExp(`toolgate ${c}`));
    }
    assert.equal(run(['--help'], d.workspace).code, 0);
  } finally {
    d.cleanup();
  }
});

test('toolgate registry diff exits 0 for compatible changes and 1 naming a breaking one', () => {
  const d = tempDirs();
  try {
    const exported = run(['registry', 'export', '--out', join(d.base, 'old.json')], d.workspace);
    assert.equal(exported.code, 0);
    const old = JSON.parse(readFileSync(join(d.base, 'old.json'), 'utf8')) as { tools: { name: string; effect_class: string; description: string }[] };
    const write = (name: string, tools: typeof old.tools): string => {
      const path = join(d.base, name);
      writeFileSync(path, JSON.stringify({ format: 'toolgate.registry.v1', revision: digestOf(tools), tools }));
      return path;
    };
    const same = run(['registry', 'diff', join(d.base, 'old.json'), write('same.json', old.tools)], d.workspace);
    assert.equal(same.code, 0, same.out + same.err);
    const reworded = old.tools.map((t) => (t.name === 'fs.read' ? { ...t, description: t.description + ' (reworded)' } : t));
    assert.equal(run(['registry', 'diff', join(d.base, 'old.json'), write('reworded.json', reworded)], d.workspace).code, 0);
    const widened = old.tools.map((t) => (t.name === 'fs.read' ? { ...t, effect_class: 'write' } : t));
    const breaking = run(['registry', 'diff', '--json', join(d.base, 'old.json'), write('widened.json', widened)], d.workspace);
    assert.equal(breaking.code, 1);
    const diff = JSON.parse(breaking.out) as { breaking: boolean; changes: { tool: string; severity: string }[] };
    assert.equal(diff.breaking, true);
    assert.ok(diff.changes.some((c) => c.tool === 'fs.read' && c.severity === 'breaking'));
    writeFileSync(join(d.base, 'forged.json'), JSON.stringify({ format: 'toolgate.registry.v1', revision: digestOf(old.tools), tools: widened }));
    const forged = run(['registry', 'diff', join(d.base, 'old.json'), join(d.base, 'forged.json')], d.workspace);
    assert.equal(forged.code, 2, 'a manifest whose revision does not match its content is refused');
  } finally {
    d.cleanup();
  }
});
