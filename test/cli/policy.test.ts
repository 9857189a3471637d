// --grant, --policy, approvals list, approve, deny: the built command as a real child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

function run(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

interface ReceiptJson {
  status: string;
  error: { code: string; data: Record<string, unknown> } | null;
  decision: { policy_version: string; grant_digest: string } | null;
}

test('call --policy asks for approval; approvals list shows it; approve lets the same call run; a second decision is refused', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
    const policy = join(d.base, 'ask.cedar');
    writeFileSync(policy, '@id("ask-reads") @approval("required") @reason("reads need a look") permit (principal, action == Toolgate::Action::"fs.read", resource);\n');
    const call = ['call', 'fs.read', '--args', '{"path":"a.txt"}', '--task', 'cli-approval', '--policy', policy, '--state-dir', d.state];
    const asked = run(call, d.workspace);
    assert.equal(asked.code, 1, asked.err);
    const receipt = JSON.parse(asked.out) as ReceiptJson;
    assert.equal(receipt.status, 'denied');
    assert.equal(receipt.error?.code, 'approval_required');
    const id = receipt.error?.data['approval_id'] as string;

    const listed = run(['approvals', 'list', '--json', '--state-dir', d.state], d.workspace);
    assert.equal(listed.code, 0, listed.err);
    const pending = JSON.parse(listed.out) as { id: string; reasons: string[]; policy_version: string }[];
    assert.deepEqual(pending.map((a) => a.id), [id]);
    assert.deepEqual(pending[0]?.reasons, ['reads need a look']);
    assert.equal(pending[0]?.policy_version, receipt.decision?.policy_version);

    assert.equal(run(['approve', id, '--by', 'alice', '--state-dir', d.state], d.workspace).code, 0);
    const again = run(call, d.workspace);
    assert.equal(again.code, 0, again.out);
    assert.equal((JSON.parse(again.out) as ReceiptJson).status, 'succeeded');

    const twice = run(['deny', id, '--state-dir', d.state], d.workspace);
    assert.equal(twice.code, 1);
    assert.equal((JSON.parse(twice.err) as { error: { code: string } }).error.code, 'precondition_failed');
    assert.equal(run(['approve', 'apr_missing', '--state-dir', d.state], d.workspace).code, 1);
    assert.equal(JSON.parse(run(['approvals', 'list', '--json', '--state-dir', d.state], d.workspace).out).length, 0);
  } finally {
    d.cleanup();
  }
});

test('call --grant narrows what a task may read; a bad grant or policy file is a usage error', () => {
  const d = tempDirs();
  try {
    mkdirSync(join(d.workspace, 'src'));
    writeFileSync(join(d.workspace, 'src', 'a.ts'), 'export {};\n');
    writeFileSync(join(d.workspace, 'notes.md'), 'notes\n');
    const grant = join(d.base, 'reviewer.json');
    writeFileSync(grant, JSON.stringify({ tools: ['fs.read'], effects: ['read'], read: ['src/**'] }));
    const outside = run(['call', 'fs.read', '--args', '{"path":"notes.md"}', '--grant', grant, '--state-dir', d.state], d.workspace);
    assert.equal(outside.code, 1);
    const r = JSON.parse(outside.out) as ReceiptJson;
    assert.equal(r.error?.code, 'policy_denied');
    assert.deepEqual(r.error?.data['determining'], ['grant.read']);
    assert.equal(run(['call', 'fs.read', '--args', '{"path":"src/a.ts"}', '--grant', grant, '--state-dir', d.state], d.workspace).code, 0);

    const bad = join(d.base, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tools: ['*'], network: true }));
    const badGrant = run(['call', 'fs.read', '--args', '{"path":"src/a.ts"}', '--grant', bad, '--state-dir', d.state], d.workspace);
    assert.equal(badGrant.code, 2);
    assert.match(badGrant.err, /--grant .*network/);

    const badPolicy = join(d.base, 'bad.cedar');
    writeFileSync(badPolicy, 'permit (principal, action, resource) when { resource.size > 1 };');
    const refused = run(['call', 'fs.read', '--args', '{"path":"src/a.ts"}', '--policy', badPolicy, '--state-dir', d.state], d.workspace);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /--policy: .*strict validation/);
  } finally {
    d.cleanup();
  }
});

test('--grant and --policy files inside the workspace are refused at start (typed), even through a path that resolves outside', () => {
  const d = tempDirs();
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    const inside = join(d.workspace, 'g.json');
    writeFileSync(inside, JSON.stringify({ tools: ['fs.read'], effects: ['read'], read: ['**'] }));
    for (const args of [
      ['--grant', inside],
      ['--grant', 'g.json'],
      ['--policy', join(d.workspace, 'p.cedar')],
      ['--grant', join(d.base, 'outside-dir', '..', 'ws', 'g.json')],
    ]) {
      writeFileSync(join(d.workspace, 'p.cedar'), 'permit (principal, action, resource);');
      const r = run(['call', 'fs.read', '--args', '{"path":"a.txt"}', ...args, '--state-dir', d.state], d.workspace);
      assert.equal(r.code, 1, args.join(' '));
      const error = (JSON.parse(r.err) as { error: { code: string; data: Record<string, unknown> } }).error;
      assert.equal(error.code, 'invalid_resource');
      assert.equal(error.data['reason'], 'inside_workspace');
    }
    // A workspace reached through a link is the same workspace.
    symlinkSync(d.workspace, join(d.base, 'ws-link'));
    const viaLink = run(['call', 'fs.read', '--args', '{"path":"a.txt"}', '--grant', join(d.base, 'ws-link', 'g.json'), '--state-dir', d.state], d.workspace);
    assert.equal(viaLink.code, 1);
    const serve = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--grant', inside, '--state-dir', d.state], { cwd: d.workspace, encoding: 'utf8', input: '' });
    assert.equal(serve.status, 1);
    assert.match(serve.stderr, /inside_workspace/);
    assert.equal(serve.stdout, '');
  } finally {
    d.cleanup();
  }
});

test('serve takes the same --grant and --policy: a policy that fails validation stops it before it serves', () => {
  const d = tempDirs();
  try {
    const badPolicy = join(d.base, 'bad.cedar');
    writeFileSync(badPolicy, 'permit (principal, action, resource) when { resource.size > 1 };');
    const r = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--policy', badPolicy, '--state-dir', d.state], { cwd: d.workspace, encoding: 'utf8', input: '' });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--policy: .*strict validation/);
    assert.equal(r.stdout, '');
    const grant = join(d.base, 'g.json');
    writeFileSync(grant, JSON.stringify({ tools: ['fs.read'], effects: ['read'], read: ['**'] }));
    const ok = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--grant', grant, '--state-dir', d.state], { cwd: d.workspace, encoding: 'utf8', input: '' });
    assert.equal(ok.status, 0, ok.stderr);
  } finally {
    d.cleanup();
  }
});
