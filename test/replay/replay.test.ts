// Recorded agent sessions (test/replay/sessions/*.txt) replayed through the built `toolgate serve`
// by the MCP SDK client, over stdio and over Streamable HTTP, in a fresh git workspace each time.
// Each call's text content — what a model reads — must equal the recording once receipt ids,
// digests and timings are normalized, and the files must end as recorded. Set
// TOOLGATE_REPLAY_UPDATE=1 to rewrite the recordings from a stdio run (then review the diff).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';
import { alive, waitFor } from '../support/processes.js';
import { formatTranscript, normalizeText, parseTranscript, type Transcript } from './transcript.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const SESSIONS = join(import.meta.dirname, 'sessions');
const UPDATE = process.env['TOOLGATE_REPLAY_UPDATE'] === '1';

type Transport = 'stdio' | 'http';

function seedWorkspace(workspace: string, t: Transcript): void {
  for (const [path, content] of t.files) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
  const git = (...args: string[]): void => {
    execFileSync('git', ['-c', 'user.email=replay@toolgate.invalid', '-c', 'user.name=replay', ...args], { cwd: workspace, stdio: 'ignore' });
  };
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'recorded start');
}

async function connect(transport: Transport, d: ReturnType<typeof tempDirs>, task: string): Promise<{ client: Client; stop: () => Promise<void> }> {
  const client = new Client({ name: 'replay', version: '1.0.0' });
  if (transport === 'stdio') {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', task], stderr: 'inherit' }),
    );
    return { client, stop: () => client.close() };
  }
  const tokenFile = join(d.base, 'token');
  writeFileSync(tokenFile, 'tok-replay\n');
  const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--token-file', tokenFile, '--workspace', d.workspace, '--state-dir', d.state, '--task', task], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stop = async (): Promise<void> => {
    await client.close().catch(() => {});
    child.kill('SIGTERM');
    const pid = child.pid ?? 0;
    assert.ok(await waitFor(() => !alive(pid), 10_000), 'the HTTP server exited');
  };
  try {
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    assert.ok(await waitFor(() => /serving MCP on (\S+)/.test(stderr), 20_000), stderr);
    const url = /serving MCP on (\S+)/.exec(stderr)?.[1] ?? assert.fail('no url');
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: 'Bearer tok-replay' } } }));
  } catch (e) {
    await stop();
    throw e;
  }
  return { client, stop };
}

async function replay(file: string, transport: Transport): Promise<void> {
  const source = readFileSync(join(SESSIONS, file), 'utf8');
  const t = parseTranscript(source);
  assert.ok(t.calls.length > 0, `${file} records no call`);
  const d = tempDirs('tg-replay');
  try {
    seedWorkspace(d.workspace, t);
    const { client, stop } = await connect(transport, d, `replay-${file.replace(/\W/g, '-')}`);
    const answers: { isError: boolean; text: string }[] = [];
    try {
      for (const [i, c] of t.calls.entries()) {
        const r = await client.callTool({ name: c.tool, arguments: c.args });
        const raw = ((r.content ?? []) as { type: string; text?: string }[]).map((x) => x.text ?? '').join('\n');
        const receiptId = String(r._meta?.['toolgate/receipt_id']);
        assert.match(raw, new RegExp(receiptId.replace(/[^\w]/g, '\\$&')), `call ${i + 1} (${c.tool}): the text names its receipt`);
        const answer = { isError: r.isError === true, text: normalizeText(raw, receiptId, d.workspace) };
        answers.push(answer);
        if (UPDATE) continue;
        assert.equal(answer.text, c.text, `call ${i + 1} (${c.tool} ${JSON.stringify(c.args)}): the text differs from the recording`);
        assert.equal(answer.isError, c.isError, `call ${i + 1} (${c.tool}): isError`);
      }
    } finally {
      await stop();
    }
    if (UPDATE && transport === 'stdio') writeFileSync(join(SESSIONS, file), formatTranscript(t, answers));
    for (const [path, content] of t.after) assert.equal(readFileSync(join(d.workspace, path), 'utf8'), content, `${path} after the session`);
  } finally {
    d.cleanup();
  }
}

const recordings = readdirSync(SESSIONS).filter((f) => f.endsWith('.txt')).sort();

describe('recorded agent sessions replayed through a real MCP client', () => {
  it('there are recordings of each kind the issue names', () => {
    for (const kind of ['failing-test-run', 'line-range-edit', 'listing', 'session-cd-export']) assert.ok(recordings.includes(`${kind}.txt`), `${kind}.txt is recorded`);
  });
  for (const file of recordings) {
    for (const transport of ['stdio', 'http'] as const) {
      it(`${file} over ${transport}`, { timeout: 180_000 }, () => replay(file, transport));
    }
  }
});
