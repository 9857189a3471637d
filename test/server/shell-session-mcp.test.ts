// shell.session through a real MCP SDK client over stdio: the text content a model reads for a
// session with cd and export, a failing command, a background job, a yield + stdin + read; and
// the session (with its background job) ends when the client disconnects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';
import { pidsRunning } from '../tools/shell-session/rig.js';

const MAIN = join(import.meta.dirname, '../support/mcp-stdio-main.ts');

interface TextResult {
  readonly isError?: boolean;
  readonly content: { type: string; text?: string }[];
  readonly structuredContent?: Record<string, unknown>;
}

describe('shell_session over MCP stdio: what the model reads', () => {
  const dirs = tempDirs('tg-session-mcp');
  let client: Client;
  let transport: StdioClientTransport;

  before(async () => {
    mkdirSync(join(dirs.workspace, 'sub'));
    client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', MAIN, JSON.stringify({ workspace: dirs.workspace, state: dirs.state, ledger: join(dirs.base, 'ledger') })],
      stderr: 'inherit',
    });
    await client.connect(transport);
  });

  after(async () => {
    await client.close().catch(() => {});
    dirs.cleanup();
  });

  const call = async (args: Record<string, unknown>): Promise<{ text: string; isError: boolean; result: TextResult }> => {
    const result = (await client.callTool({ name: 'shell_session', arguments: args })) as TextResult;
    const text = result.content.map((c) => c.text ?? '').join('\n');
    return { text, isError: result.isError === true, result };
  };

  it('is listed with its input schema', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'shell_session');
    assert.ok(tool);
    assert.ok(Object.keys(tool.inputSchema.properties ?? {}).includes('yield_ms'));
  });

  it('cd and export persist into the next call; each text names the cwd, env changes and the receipt', async () => {
    const first = await call({ command: 'cd sub && export FOO=bar' });
    assert.equal(first.isError, false);
    assert.match(first.text, /^shell\.session succeeded: \[session "default"\] exit code 0 after \d+ ms$/m);
    assert.match(first.text, /^cwd: sub$/m);
    assert.match(first.text, /^env: added FOO=bar$/m);
    assert.match(first.text, /^receipt rcpt_[0-9a-f]+$/m);
    const second = await call({ command: 'pwd; echo $FOO' });
    assert.match(second.text, new RegExp(`--- stdout \\(2 lines, \\d+ bytes\\) ---\\n${join(dirs.workspace, 'sub').replace(/[/.]/g, '\\$&')}\\nbar\\n`));
    assert.doesNotMatch(second.text, /^env:/m);
  });

  it('a failing command: isError, with its exit code and stderr in the text', async () => {
    const r = await call({ command: 'echo trying; ls no-such-file' });
    assert.equal(r.isError, true);
    assert.match(r.text, /^shell\.session failed: execution_failed: the command exited with 2 \(receipt rcpt_[0-9a-f]+\)$/m);
    assert.match(r.text, /^\[session "default"\] exit code 2 after \d+ ms$/m);
    assert.match(r.text, /^trying$/m);
    assert.match(r.text, /--- stderr \(1 line, \d+ bytes\) ---\nls: cannot access 'no-such-file': No such file or directory/);
  });

  it('a background job keeps running and is counted', async () => {
    const r = await call({ command: 'sleep 7741 & echo started' });
    assert.match(r.text, /^started$/m);
    assert.match(r.text, /^1 background process\(es\) still running in the session$/m);
  });

  it('yield: still running (not an error), then write to its stdin, then read the rest and the exit status', async () => {
    const started = await call({ command: 'read x; echo "got $x"; sleep 1; echo end', yield_ms: 300 });
    assert.equal(started.isError, false);
    assert.match(started.text, /^shell\.session still running: \[session "default"\] still running after \d+ ms: use action "read" to wait for more output and the exit status, "write" to send stdin text or a key such as C-c$/m);
    assert.equal(started.result.structuredContent?.['running'], true);
    // The command sleeps a second after its input: a write that waits 0 ms finds it running.
    const wrote = await call({ action: 'write', text: 'hello\n', yield_ms: 0 });
    assert.equal(wrote.isError, false);
    assert.match(wrote.text, /still running after \d+ ms/);
    const read = await call({ action: 'read', yield_ms: 10_000 });
    assert.equal(read.isError, false);
    assert.match(read.text, /^shell\.session succeeded: \[session "default"\] exit code 0 after \d+ ms$/m);
    assert.match(wrote.text + read.text, /^got hello$/m);
    assert.match(read.text, /^end$/m);
    const again = await call({ action: 'read' });
    assert.equal(again.isError, true);
    assert.match(again.text, /no command is running in session "default"/);
  });

  it('the session and its background job end when the client disconnects', async () => {
    assert.equal(pidsRunning('sleep', '7741').length, 1);
    await client.close();
    assert.ok(await waitFor(() => pidsRunning('sleep', '7741').length === 0, 15_000), 'the background sleep is gone');
  });
});
