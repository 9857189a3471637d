// The task token over HTTP (it is the bearer token of `serve --http --task-token-file`), and the
// operator's `toolgate task list | show | cancel`, which ends the child's HTTP host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { PROTOCOL_VERSION, type TaskId } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { waitFor } from '../support/processes.js';
import { BIN, gitTree, spawnArgs } from './fixtures.js';

test('a child served over HTTP: its token is the bearer token; the operator lists, shows and cancels it, and its host exits', async () => {
  const t = gitTree('tg-sub-http', { 'src/a.txt': 'a\n' });
  const rt = await createRuntime({ workspace: t.workspace, stateDir: t.state, tasks: {} });
  let id: string;
  let tokenFile: string;
  try {
    const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'root', tool: 'task.spawn', arguments: spawnArgs(['src']) });
    ({ task_id: id, token_file: tokenFile } = r.result as { task_id: string; token_file: string });
  } finally {
    await rt.close();
  }
  const host = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--task-token-file', tokenFile, '--state-dir', t.state, '--config', t.config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  host.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => host.once('close', resolve));
  try {
    assert.ok(await waitFor(() => /serving MCP on (\S+)/.test(stderr), 20_000), stderr);
    const url = new URL(/serving MCP on (\S+)/.exec(stderr)?.[1] ?? assert.fail('no url'));
    assert.match(stderr, /bearer token required/);
    const anonymous = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(anonymous.status, 401);
    const token = readFileSync(tokenFile, 'utf8').trim();
    const client = new Client({ name: 'child-http', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      const w = await client.callTool({ name: 'fs_write', arguments: { path: 'src/a.txt', content: 'b\n', mode: 'create_or_replace' } });
      assert.notEqual(w.isError, true, JSON.stringify(w));
      // The write is the child's: in its worktree, under its task id.
      assert.equal(readFileSync(`${t.state}.worktrees/${id}/src/a.txt`, 'utf8'), 'b\n');
      assert.equal(readFileSync(`${t.workspace}/src/a.txt`, 'utf8'), 'a\n');
    } finally {
      await client.close();
    }
    const cli = (...args: string[]): string => execFileSync(process.execPath, [BIN, 'task', ...args, '--workspace', t.workspace, '--state-dir', t.state], { encoding: 'utf8' });
    const list = JSON.parse(cli('list', '--json')) as { task_id: string; state: string; parent_id: string }[];
    assert.deepEqual(list.map((s) => [s.task_id, s.parent_id, s.state]), [[id, 'root', 'running']]);
    assert.equal((JSON.parse(cli('show', id)) as { record: { owned: string[] } }).record.owned[0], 'src');
    assert.match(cli('cancel', id), new RegExp(`cancelled ${id}`));
    // The host sees the cancellation and exits by itself.
    assert.ok(await waitFor(() => host.exitCode !== null, 30_000), stderr);
    assert.equal(await exited, 0);
    assert.match(stderr, /subtask cancelled: closing/);
    const after = await createRuntime({ workspace: t.workspace, stateDir: t.state });
    try {
      const receipts = await after.store.listReceipts({ task: id as TaskId });
      assert.deepEqual(receipts.map((r) => `${r.task_id} ${r.tool} ${r.status}`), [`${id} fs.write succeeded`]);
    } finally {
      await after.close();
    }
  } finally {
    if (host.exitCode === null) host.kill('SIGKILL');
    await exited;
    t.cleanup();
  }
});

test('serve refuses a token that names no subtask, and the token of a subtask that ended', async () => {
  const t = gitTree('tg-sub-token', { 'src/a.txt': 'a\n' });
  try {
    const rt = await createRuntime({ workspace: t.workspace, stateDir: t.state, tasks: {} });
    let tokenFile: string;
    let id: string;
    try {
      const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'root', tool: 'task.spawn', arguments: spawnArgs(['src']) });
      ({ task_id: id, token_file: tokenFile } = r.result as { task_id: string; token_file: string });
    } finally {
      await rt.close();
    }
    const serve = (file: string) => spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--task-token-file', file, '--state-dir', t.state], { encoding: 'utf8', input: '' });
    const forged = join(t.base, 'forged.token');
    writeFileSync(forged, `tgk_${'A'.repeat(43)}\n`);
    const wrong = serve(forged);
    assert.equal(wrong.status, 2);
    assert.match(wrong.stderr, /usage: --task-token-file: the token in .* names no subtask/);
    const kept = join(t.base, 'kept.token');
    writeFileSync(kept, readFileSync(tokenFile));
    execFileSync(process.execPath, [BIN, 'task', 'cancel', id, '--workspace', t.workspace, '--state-dir', t.state]);
    assert.equal(existsSync(tokenFile), false, 'the token file is gone with the subtask');
    const ended = serve(kept);
    assert.equal(ended.status, 2);
    assert.match(ended.stderr, new RegExp(`subtask ${id} is cancelled`));
  } finally {
    t.cleanup();
  }
});
