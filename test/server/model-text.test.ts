// What a model reads (issue 12): the text content of real tool results from the built
// `toolgate serve --stdio` driven by the SDK client, and one over HTTP. The assertions are on the
// text, since clients such as Claude Code show the model only that.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';
import { alive, waitFor } from '../support/processes.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

interface ToolAnswer {
  readonly text: string;
  readonly isError: boolean;
  readonly structured: Record<string, unknown>;
  readonly receiptId: string;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const r = await client.callTool({ name, arguments: args });
  const text = ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
  return { text, isError: r.isError === true, structured: r.structuredContent as Record<string, unknown>, receiptId: String(r._meta?.['toolgate/receipt_id']) };
}

describe('the text a model reads, through the built CLI over stdio', () => {
  const d = tempDirs('tg-model-text');
  let client: Client;

  before(async () => {
    writeFileSync(join(d.workspace, 'a.py'), 'def f(x):\n    y = x + 1\n    return y\n');
    const lines: string[] = [];
    for (let i = 1; i <= 5000; i++) lines.push(`row ${i} ${'v'.repeat(20)}`);
    writeFileSync(join(d.workspace, 'big.txt'), `${lines.join('\n')}\n`);
    client = new Client({ name: 'model-text', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'model-text'],
        stderr: 'inherit',
      }),
    );
  });

  after(async () => {
    await client.close().catch(() => {});
    d.cleanup();
  });

  it('a failing command shows its exit code, reason, stdout and stderr previews and the receipt id', async () => {
    const r = await call(client, 'shell_exec', { shell: 'sh', script: 'echo out; echo err >&2; exit 3' });
    assert.equal(r.isError, true);
    assert.match(r.text, new RegExp(`^shell\\.exec failed: execution_failed: the command exited with 3 \\(receipt ${r.receiptId}\\)\\n`));
    assert.match(r.text, /\nexit code 3 \(reason: exited\) after \d+ ms\n/);
    assert.match(r.text, /\n--- stdout \(1 line, 4 bytes\) ---\nout\n--- stderr \(1 line, 4 bytes\) ---\nerr(\n|$)/);
  });

  it('a long output shows head and tail with the omitted bytes and the artifact of the whole stream', async () => {
    const r = await call(client, 'shell_exec', { shell: 'sh', script: 'seq 1 100000; exit 1' });
    assert.equal(r.isError, true);
    const bytes = Buffer.byteLength(Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(''));
    const n = (x: number): string => x.toLocaleString('en-US');
    assert.match(r.text, new RegExp(`--- stdout \\(100,000 lines, ${n(bytes)} bytes; … [\\d,]+ lines \\([\\d,]+ bytes\\) omitted from the middle; full stdout: artifact sha256:[0-9a-f]{64}\\) ---\\n1\\n2\\n`));
    assert.match(r.text, /\[… \d+ bytes omitted …\]/);
    assert.match(r.text, /\n100000\n--- stderr: empty ---/);
    assert.ok(Buffer.byteLength(r.text) < 40 * 1024, `text is ${Buffer.byteLength(r.text)} bytes`);
  });

  it('10,000 numbered lines: the header names the lines and bytes omitted and the artifact of the whole stdout', async () => {
    const r = await call(client, 'shell_exec', { shell: 'sh', script: 'seq 1 10000 | sed "s/^/line /"' });
    assert.equal(r.isError, false, r.text);
    const full = Buffer.from(Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}\n`).join(''));
    // The oracle: the lines that lie whole between the 8 KiB head and the 8 KiB tail.
    const [headEnd, tailStart] = [8192, full.length - 8192];
    let omittedLines = 0;
    for (let start = 0; start < full.length; ) {
      const end = full.indexOf(0x0a, start) + 1;
      if (start >= headEnd && end <= tailStart) omittedLines++;
      start = end;
    }
    const stdout = r.structured['stdout'] as Record<string, unknown>;
    const artifact = stdout['artifact'] as { digest: string };
    assert.deepEqual([stdout['lines'], stdout['omitted_lines'], stdout['omitted_bytes']], [10_000, omittedLines, tailStart - headEnd]);
    const n = (x: number): string => x.toLocaleString('en-US');
    const header = `--- stdout (10,000 lines, ${n(full.length)} bytes; … ${n(omittedLines)} lines (${n(tailStart - headEnd)} bytes) omitted from the middle; full stdout: artifact ${artifact.digest}) ---`;
    assert.ok(r.text.startsWith(`shell.exec succeeded: exit code 0 (reason: exited) after `), r.text.slice(0, 200));
    assert.ok(r.text.includes(`\n${header}\nline 1\nline 2\n`), r.text.slice(0, 400));
    assert.match(r.text, new RegExp(`\\n\\[… ${tailStart - headEnd} bytes omitted …\\]\\n`));
    assert.ok(r.text.includes('\nline 9999\nline 10000\n--- stderr: empty ---\nreceipt '), r.text.slice(-300));
  });

  it('a refused stale edit shows the closest region of the file, numbered', async () => {
    const r = await call(client, 'fs_patch', { files: [{ path: 'a.py', edits: [{ old: '    y = x + 2\n', new: '    y = x + 3\n' }] }] });
    assert.equal(r.isError, true);
    assert.match(r.text, /^fs\.patch failed: no_match: edit 1: the old text was not found in a\.py/);
    assert.match(r.text, /\nclosest region 1 of the file: line 2 \(similarity [\d.]+\):\n {5}2\t {4}y = x \+ 1\n/);
    assert.equal(readFileSync(join(d.workspace, 'a.py'), 'utf8'), 'def f(x):\n    y = x + 1\n    return y\n');
  });

  it('already_exists names the mode options and the current sha256', async () => {
    const r = await call(client, 'fs_write', { path: 'a.py', content: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.text, /^fs\.write failed: already_exists: a\.py already exists/);
    assert.match(r.text, /mode "replace" with expected_sha256 "[0-9a-f]{64}", or mode "create_or_replace"/);
  });

  it('a missing parent directory names create_parents', async () => {
    const r = await call(client, 'fs_write', { path: 'no/such/b.txt', content: 'x' });
    assert.equal(r.isError, true);
    assert.match(r.text, /^fs\.write failed: not_found: /);
    assert.match(r.text, /\nthe directory no does not exist; set create_parents: true to create the missing directories/);
  });

  it('a read past the end of the file says so instead of an empty success', async () => {
    const r = await call(client, 'fs_read', { path: 'a.py', start_line: 10 });
    assert.equal(r.isError, false);
    assert.equal(r.structured['content'], '');
    assert.equal(r.text, `fs.read a.py: start_line 10 is past the end of the file, which has 3 lines (37 bytes); nothing was read. Read from start_line 1 to 3.\nreceipt ${r.receiptId}`);
  });

  it('a big file read without bounds stops at the default window, numbered, with how to continue', async () => {
    const r = await call(client, 'fs_read', { path: 'big.txt' });
    assert.equal(r.isError, false);
    assert.equal(r.structured['end_line'], 2000);
    assert.equal(r.structured['truncated'], true);
    assert.match(String(r.structured['content']), /^row 1 v+\n/); // structured content stays raw
    const lines = r.text.split('\n');
    assert.equal(lines[0], 'fs.read big.txt: lines 1-2000 of 5000 (cat -n: number, tab, line; the numbers are not part of the file):');
    assert.equal(lines[1], `     1\trow 1 ${'v'.repeat(20)}`);
    assert.equal(lines[2000], `  2000\trow 2000 ${'v'.repeat(20)}`);
    assert.match(lines[2001] ?? '', /^\[truncated: showing lines 1-2000 of 5000\. To read on, call fs_read with \{"path":"big\.txt","start_line":2001\} or with "continuation":"[^"]+"\]$/);
    assert.equal(lines[2002], `receipt ${r.receiptId}`);
    // The continuation named in the text reads on from line 2001.
    const token = /"continuation":"([^"]+)"/.exec(r.text)?.[1] ?? assert.fail('no continuation in the text');
    const next = await call(client, 'fs_read', { path: 'big.txt', continuation: token, line_numbers: false });
    assert.equal(next.structured['start_line'], 2001);
    assert.match(next.text, /^fs\.read big\.txt: lines 2001-4000 of 5000:\nrow 2001 v+\n/);
  });

  it('a change names its receipt and how to undo it, and fs_undo with that id reverts it', async () => {
    const r = await call(client, 'fs_write', { path: 'new.txt', content: 'hello\n' });
    assert.equal(r.isError, false);
    const m = /fs_undo \{"receipt_id":"(rcpt_[0-9a-f]+)"\}/.exec(r.text) ?? assert.fail(r.text);
    assert.equal(m[1], r.receiptId);
    const undone = await call(client, 'fs_undo', { receipt_id: m[1] });
    assert.equal(undone.isError, false, undone.text);
    assert.throws(() => readFileSync(join(d.workspace, 'new.txt')), { code: 'ENOENT' });
  });
});

describe('the text a model reads, over Streamable HTTP', () => {
  it('a failing command shows exit code and both streams to an HTTP client too', async () => {
    const d = tempDirs('tg-model-text-http');
    mkdirSync(join(d.workspace, 'src'));
    const tokenFile = join(d.base, 'token');
    writeFileSync(tokenFile, 'tok-model-text\n');
    const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--token-file', tokenFile, '--workspace', d.workspace, '--state-dir', d.state, '--task', 'model-text-http'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
      assert.ok(await waitFor(() => /serving MCP on (\S+)/.test(stderr), 20_000), stderr);
      const url = /serving MCP on (\S+)/.exec(stderr)?.[1] ?? assert.fail('no url');
      const client = new Client({ name: 'model-text-http', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer tok-model-text' } } }));
      try {
        const r = await call(client, 'shell_exec', { argv: ['sh', '-c', 'echo out; echo err >&2; exit 3'] });
        assert.equal(r.isError, true);
        assert.match(r.text, /exit code 3 \(reason: exited\)/);
        assert.match(r.text, /--- stdout \(1 line, 4 bytes\) ---\nout\n--- stderr \(1 line, 4 bytes\) ---\nerr/);
        assert.match(r.text, new RegExp(`\\(receipt ${r.receiptId}\\)`));
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
      const pid = child.pid ?? 0;
      assert.ok(await waitFor(() => !alive(pid), 10_000), 'server exited');
      d.cleanup();
    }
  });
});
