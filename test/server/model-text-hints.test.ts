// What a model reads when a call fails for a reason it can fix (issue 12, item 1): the text names
// the argument or the tool that gets past it. Through the built `toolgate serve --stdio` and the
// SDK client; the assertions are on the text content.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; receiptId: string; structured: Record<string, unknown> }> {
  const r = await client.callTool({ name, arguments: args });
  const text = ((r.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('\n');
  return { text, isError: r.isError === true, receiptId: String(r._meta?.['toolgate/receipt_id']), structured: r.structuredContent as Record<string, unknown> };
}

describe('failure texts that name the way past them, through the built CLI over stdio', () => {
  const d = tempDirs('tg-model-hints');
  let client: Client;

  before(async () => {
    mkdirSync(join(d.workspace, 'src/deep'), { recursive: true });
    writeFileSync(join(d.workspace, 'src/deep/target.py'), 'x = 1\n');
    client = new Client({ name: 'model-text-hints', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'hints'], stderr: 'inherit' }));
  });
  after(async () => {
    await client.close().catch(() => {});
    d.cleanup();
  });

  it('a command that cannot be started says nothing ran and why, without empty streams', async () => {
    const r = await call(client, 'shell_exec', { argv: ['no-such-tool-xyz', '--version'] });
    assert.equal(r.isError, true);
    const lines = r.text.split('\n');
    assert.deepEqual(lines.slice(0, 3), [
      `shell.exec failed: execution_failed: the command could not be started (receipt ${r.receiptId})`,
      'not started (reason: spawn_failed): nothing ran',
      "note: no-such-tool-xyz: no such executable in the sandbox's PATH",
    ]);
    assert.ok(!r.text.includes('--- stdout'), r.text);
  });

  it('a wall-clock timeout names timeout_ms and keeps the output it had', async () => {
    const r = await call(client, 'shell_exec', { shell: 'sh', script: 'echo start; sleep 30', timeout_ms: 1500 });
    assert.equal(r.isError, true);
    assert.match(r.text, new RegExp(`^shell\\.exec timed_out: timed_out: the command ran past its wall-clock limit \\(receipt ${r.receiptId}\\)\\nkilled by SIG\\w+ \\(reason: timeout\\) after \\d+ ms\\n`));
    assert.ok(r.text.includes('\nthe wall-clock limit ended it: if the command needs longer, set timeout_ms (default 120000, at most 3600000)\n--- stdout (1 line, 6 bytes) ---\nstart\n'), r.text);
  });

  it('an idle timeout names idle_timeout_ms', async () => {
    const r = await call(client, 'shell_exec', { shell: 'sh', script: 'echo a; sleep 30', idle_timeout_ms: 1000 });
    assert.ok(r.text.includes('\nit wrote no output for idle_timeout_ms: raise idle_timeout_ms, or have the command print progress\n'), r.text);
  });

  it('output past the cap names limits.output_bytes, and the header tells recorded from written bytes', async () => {
    const r = await call(client, 'shell_exec', { shell: 'sh', script: 'yes | head -c 300000', limits: { output_bytes: 100_000 } });
    assert.equal(r.isError, true);
    assert.ok(r.text.includes('\na stream passed limits.output_bytes (100,000 bytes): redirect the output to a file in the workspace and read it with fs_read or fs_search, or raise limits.output_bytes\n'), r.text.slice(0, 600));
    const written = (r.structured['result'] as { stdout: { bytes: number } }).stdout.bytes;
    assert.ok(written > 100_000);
    assert.ok(r.text.includes(`\n--- stdout (50,000 lines, 100,000 bytes recorded of ${written.toLocaleString('en-US')} bytes written; … `), r.text.slice(0, 900));
  });

  it('fs_read of a directory points to fs_list', async () => {
    const r = await call(client, 'fs_read', { path: 'src' });
    assert.equal(r.text, `fs.read failed: invalid_resource: src is a directory (receipt ${r.receiptId})\nfs_read reads files; to see what the directory holds: fs_list {"path":"src"}`);
  });

  it('fs_read of a file that is not there names the filename search that finds it, and that search does', async () => {
    const r = await call(client, 'fs_read', { path: 'target.py' });
    assert.equal(r.text, `fs.read failed: not_found: no such file: target.py (receipt ${r.receiptId})\nto find it by name: fs_search {"mode":"filename","query":"target.py"}`);
    const hint = /fs_search (\{.*\})$/.exec(r.text)?.[1] ?? assert.fail('no hint');
    const found = await call(client, 'fs_search', JSON.parse(hint) as Record<string, unknown>);
    assert.ok(found.text.includes('src/deep/target.py'), found.text);
  });
});
