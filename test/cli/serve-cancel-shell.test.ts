// Cancelling a running shell.exec from an MCP client, over stdio and over HTTP, through the
// built `toolgate serve`: the receipt says cancelled and no process of the command is left.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createRuntime } from '../../src/runtime/index.js';
import { tempDirs } from '../support/fixtures.js';
import { alive, waitFor } from '../support/processes.js';
import { describeMarked, newMarker, processesWithMarker, sleepersWithMarker } from '../sandbox/fixtures.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

async function cancelSleep(client: Client): Promise<string> {
  const marker = newMarker();
  const ac = new AbortController();
  const call = client.callTool(
    { name: 'shell_exec', arguments: { argv: ['sh', '-c', 'sleep 60 & sleep 60; wait'], env: { set: { TG_MARKER: marker } } } },
    { signal: ac.signal },
  );
  call.catch(() => {});
  assert.ok(await waitFor(() => sleepersWithMarker(marker).length >= 2, 20_000), 'the command is running');
  ac.abort();
  await assert.rejects(call);
  // The bound covers the abort grace (5 s: SIGTERM, then the cgroup is killed) on a loaded
  // machine; it once ran out at 10 s while four test suites shared the two cores.
  assert.ok(await waitFor(() => processesWithMarker(marker).length === 0, 30_000), `survivors: ${describeMarked(marker)}`);
  return marker;
}

/** Receipts of a task, or of every task (a 2025-era HTTP session is a task of its own). */
async function statuses(workspace: string, state: string, task?: string): Promise<string[]> {
  const rt = await createRuntime({ workspace, stateDir: state });
  try {
    return (await rt.store.listReceipts(task === undefined ? {} : { task: task as never })).map((r) => `${r.tool} ${r.status} ${r.error?.code ?? ''}`.trim());
  } finally {
    await rt.close();
  }
}

test('stdio: a cancelled shell_exec leaves a cancelled receipt and no process', async () => {
  const d = tempDirs('tg-cancel-stdio');
  try {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'cancel-stdio'], stderr: 'inherit' });
    const client = new Client({ name: 'cancel-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      await cancelSleep(client);
    } finally {
      await client.close();
    }
    assert.ok(await waitFor(() => transport.pid === null || !alive(transport.pid), 10_000));
    assert.deepEqual(await statuses(d.workspace, d.state, 'cancel-stdio'), ['shell.exec cancelled cancelled']);
  } finally {
    d.cleanup();
  }
});

test('HTTP (2025-11-25 and 2026-07-28 clients): a cancelled shell_exec leaves a cancelled receipt and no process', async () => {
  const d = tempDirs('tg-cancel-http');
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'cancel-http'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise((resolve) => child.once('close', resolve));
  try {
    assert.ok(await waitFor(() => /serving MCP on (\S+)/.test(stderr), 20_000), stderr);
    const url = new URL(/serving MCP on (\S+)/.exec(stderr)?.[1] ?? assert.fail('no url'));
    for (const era of ['2025-11-25', '2026-07-28'] as const) {
      // A client that does not ask speaks 2025-11-25; the new era is asked for by pinning it.
      const client = era === '2025-11-25' ? new Client({ name: 'cancel-test', version: '1.0.0' }) : new Client({ name: 'cancel-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: era } } });
      await client.connect(new StreamableHTTPClientTransport(url));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), era);
        await cancelSleep(client);
      } finally {
        await client.close();
      }
    }
    child.kill('SIGTERM');
    await exited;
    const got = await statuses(d.workspace, d.state);
    assert.deepEqual(got.filter((s) => s.startsWith('shell.exec')), ['shell.exec cancelled cancelled', 'shell.exec cancelled cancelled']);
  } finally {
    child.kill('SIGKILL');
    d.cleanup();
  }
});
