// Result form (docs/mcp.md "Result form"): which half of a tools/call result carries it, through
// the built `toolgate serve --stdio` and a real SDK client. A client that names itself
// `claude-code` gets the text alone (no outputSchema, no structuredContent: that client would
// give the model the JSON instead of the text); an unknown client gets both; `structured` sends
// the page once, in structuredContent, with a one-line text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const PAGE = Array.from({ length: 40 }, (_, i) => `line ${i + 1} ${'x'.repeat(50)}`).join('\n') + '\n';

interface Seen {
  readonly outputSchema: boolean;
  readonly text: string;
  readonly structured: Record<string, unknown> | undefined;
  readonly receiptId: unknown;
  readonly missingText: string;
}

async function seen(clientName: string, extra: readonly string[]): Promise<Seen> {
  const d = tempDirs('tg-result-form');
  writeFileSync(join(d.workspace, 'a.txt'), PAGE);
  const client = new Client({ name: clientName, version: '1.0.0' });
  try {
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, ...extra], stderr: 'inherit' }),
    );
    const tools = (await client.listTools()).tools;
    const read = tools.find((t) => t.name === 'fs_read');
    assert.ok(read);
    const r = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } });
    const missing = await client.callTool({ name: 'fs_read', arguments: { path: 'nope.txt' } });
    assert.equal(missing.isError, true);
    const textOf = (x: typeof r): string => ((x.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('\n');
    return {
      outputSchema: read.outputSchema !== undefined,
      text: textOf(r),
      structured: r.structuredContent as Record<string, unknown> | undefined,
      receiptId: r._meta?.['toolgate/receipt_id'],
      missingText: textOf(missing),
    };
  } finally {
    await client.close().catch(() => {});
    d.cleanup();
  }
}

test('auto: a client that is not known to prefer structuredContent gets both halves', async () => {
  const s = await seen('some-client', []);
  assert.equal(s.outputSchema, true);
  assert.equal(s.structured?.['content'], PAGE);
  assert.match(s.text, /^fs\.read a\.txt: lines 1-40 of 40/);
  assert.match(s.text, /\n {5}1\tline 1 x/);
});

test('auto: claude-code gets the text alone, with no outputSchema to oblige structuredContent', async () => {
  const s = await seen('claude-code', []);
  assert.equal(s.outputSchema, false);
  assert.equal(s.structured, undefined);
  assert.match(s.text, /\n {5}1\tline 1 x/, 'the numbered page is in the text');
  assert.match(String(s.receiptId), /^rcpt_/, 'the receipt id still travels in _meta');
  assert.match(s.missingText, /not_found/);
});

test('--result-form structured: the page once, in structuredContent; the text is one line naming the receipt', async () => {
  const s = await seen('some-client', ['--result-form', 'structured']);
  assert.equal(s.outputSchema, true);
  assert.equal(s.structured?.['content'], PAGE);
  assert.equal(s.text, `fs.read succeeded (receipt ${String(s.receiptId)}); the result is in structuredContent`);
  assert.match(s.missingText, /fs\.read failed: not_found/, 'a failure keeps its text');
});

test('--result-form both overrides auto for claude-code; a bad value is a usage error', async () => {
  const s = await seen('claude-code', ['--result-form', 'both']);
  assert.equal(s.outputSchema, true);
  assert.equal(s.structured?.['content'], PAGE);
  const bad = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--result-form', 'json'], { encoding: 'utf8', input: '' });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--result-form takes one of auto, both, text, structured/);
});
