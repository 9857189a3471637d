// The `toolgate` command as npm installs it (package.json bin: dist/src/cli/bin.cjs): it sizes
// libuv's thread pool before the module loader starts it (16 threads unless the user set
// UV_THREADPOOL_SIZE), then runs the CLI. The pool's threads exist once it has started, so the
// served process has 12 more threads than the same server started from main.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'dist/src/cli/bin.cjs');
const MAIN = join(ROOT, 'dist/src/cli/main.js');

/** Threads of a served process after one call, and the call's answer. */
async function served(entry: string, env: Record<string, string>): Promise<{ threads: number; content: string }> {
  const d = tempDirs('tg-bin');
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [entry, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state],
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/root', ...env },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'bin-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } });
      const pid = transport.pid as number;
      return { threads: readdirSync(`/proc/${pid}/task`).length, content: (r.structuredContent as { content: string }).content };
    } finally {
      await client.close();
    }
  } finally {
    d.cleanup();
  }
}

test('the installed command serves with a thread pool of 16, or the size the user set', async () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  assert.equal(pkg.bin['toolgate'], 'dist/src/cli/bin.cjs', 'npm installs the bootstrap as the command');
  const viaMain = await served(MAIN, {});
  const viaBin = await served(BIN, {});
  const userSet = await served(BIN, { UV_THREADPOOL_SIZE: '4' });
  assert.equal(viaBin.content, 'hello\n', 'the bootstrap runs the CLI');
  // Other threads (V8's, the receipt writer, search workers) are the same in the three; allow
  // for one that comes or goes with timing.
  assert.ok(Math.abs(viaBin.threads - viaMain.threads - 12) <= 1, `16 pool threads instead of 4: ${viaBin.threads} against ${viaMain.threads}`);
  assert.ok(Math.abs(userSet.threads - viaMain.threads) <= 1, `UV_THREADPOOL_SIZE=4 kept: ${userSet.threads} against ${viaMain.threads}`);
});
