// `toolgate serve` as a real child process (the built bin), driven by the v2 SDK client.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { serveCommand } from '../../src/cli/serve.js';
import { UsageError } from '../../src/cli/usage.js';
import { createRuntime } from '../../src/runtime/index.js';
import { tempDirs } from '../support/fixtures.js';
import { alive, waitFor } from '../support/processes.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const io = { out: () => {}, err: () => {} };

async function receiptsOf(workspace: string, state: string, task: string): Promise<string[]> {
  const rt = await createRuntime({ workspace, stateDir: state });
  try {
    return (await rt.store.listReceipts({ task: task as never })).map((r) => `${r.tool} ${r.status}`);
  } finally {
    await rt.close();
  }
}

describe('toolgate serve', () => {
  it('--stdio serves fs_read and exits when the client closes stdin', async () => {
    const d = tempDirs('tg-serve');
    try {
      writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'serve-stdio'],
        stderr: 'inherit',
      });
      const client = new Client({ name: 'serve-test', version: '1.0.0' });
      await client.connect(transport);
      const r = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } });
      assert.equal((r.structuredContent as { content: string }).content, 'hello\n');
      const pid = transport.pid ?? assert.fail('no pid');
      await client.close();
      assert.ok(await waitFor(() => !alive(pid), 10_000), 'server exited');
      assert.deepEqual(await receiptsOf(d.workspace, d.state, 'serve-stdio'), ['fs.read succeeded']);
    } finally {
      d.cleanup();
    }
  });

  it('--http 0 --token-file prints its URL, needs the token, and ends cleanly on SIGTERM', async () => {
    const d = tempDirs('tg-serve-http');
    try {
      writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
      const tokenFile = join(d.base, 'token');
      writeFileSync(tokenFile, 'sekret-42\n');
      const child = spawn(
        process.execPath,
        [BIN, 'serve', '--http', '0', '--token-file', tokenFile, '--workspace', d.workspace, '--state-dir', d.state, '--task', 'serve-http'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      assert.ok(await waitFor(() => /serving MCP on (\S+)/.test(stderr), 20_000), stderr);
      const url = /serving MCP on (\S+)/.exec(stderr)?.[1] ?? assert.fail('no url');
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      assert.equal((await fetch(url, { method: 'POST', body: '{}' })).status, 401);
      const client = new Client({ name: 'serve-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer sekret-42' } } }));
      const r = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } });
      assert.equal(r._meta?.['toolgate/status'], 'succeeded');
      await client.close();
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
      assert.deepEqual(await receiptsOf(d.workspace, d.state, 'serve-http'), ['fs.read succeeded']);
    } finally {
      d.cleanup();
    }
  });

  it('refuses a mode other than exactly one of --stdio and --http, and --host with --stdio', async () => {
    await assert.rejects(serveCommand.run([], io), UsageError);
    await assert.rejects(serveCommand.run(['--stdio', '--http', '0'], io), UsageError);
    await assert.rejects(serveCommand.run(['--stdio', '--host', '0.0.0.0'], io), UsageError);
    await assert.rejects(serveCommand.run(['--http', 'eighty'], io), UsageError);
  });
});
