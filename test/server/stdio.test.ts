import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createRuntime } from '../../src/runtime/index.js';
import { entryOf } from '../../src/registry/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { tempDirs } from '../support/fixtures.js';
import { ledgerLines } from '../support/probe-tools.js';
import { slowTool } from '../support/slow-tool.js';
import { alive, waitFor } from '../support/processes.js';

/** Every current registry tool under its MCP name, plus the test tool. */
const EXPECTED_TOOLS = [...new Set(builtinTools().map((t) => t.name.replace(/\./g, '_'))), 'test_slow'].sort();

const MAIN = join(import.meta.dirname, '../support/mcp-stdio-main.ts');
const TASK = 'mcp-stdio-task';

type Era = 'legacy' | '2026-07-28';

interface Connected {
  readonly client: Client;
  readonly transport: StdioClientTransport;
}

async function connect(config: object, era: Era): Promise<Connected> {
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' }, era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', MAIN, JSON.stringify(config)],
    stderr: 'inherit',
  });
  await client.connect(transport);
  return { client, transport };
}

describe('MCP server over stdio, with a real SDK client in a child process', () => {
  const dirs = tempDirs('tg-mcp');
  const ledger = join(dirs.base, 'ledger');
  const config = {
    workspace: dirs.workspace,
    state: dirs.state,
    ledger,
    taskId: TASK,
    grant: { tools: ['*'], effects: ['read'], read: ['src/**'], write: [] },
  };
  let legacy: Connected;

  before(async () => {
    mkdirSync(join(dirs.workspace, 'src'));
    mkdirSync(join(dirs.workspace, 'private'));
    writeFileSync(join(dirs.workspace, 'src/a.txt'), 'alpha\nbeta\n');
    writeFileSync(join(dirs.workspace, 'private/b.txt'), 'secret\n');
    legacy = await connect(config, 'legacy');
  });

  after(async () => {
    await legacy.client.close().catch(() => {});
    dirs.cleanup();
  });

  it('negotiates 2025-11-25 with a client that does not ask for the new era', () => {
    assert.equal(legacy.client.getNegotiatedProtocolVersion(), '2025-11-25');
  });

  it('lists every registry tool under its MCP name with the manifest schemas and derived annotations', async () => {
    const { tools } = await legacy.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), EXPECTED_TOOLS);
    const fsRead = tools.find((t) => t.name === 'fs_read');
    const entry = entryOf(builtinTools().find((t) => t.name === 'fs.read') ?? assert.fail('no fs.read'));
    assert.deepEqual(fsRead?.inputSchema, entry.request_schema);
    assert.deepEqual(fsRead?.annotations, { title: 'fs.read', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.equal(fsRead?.description, entry.description);
    assert.equal(fsRead?._meta?.['toolgate/version'], entry.version);
    const anyOf = fsRead?.outputSchema?.['anyOf'] as unknown[];
    const { $schema: _omitted, ...resultSchema } = entry.response_schema;
    assert.deepEqual(anyOf[0], resultSchema);
    assert.equal(fsRead?.outputSchema?.type, 'object');
  });

  it('answers fs_read with the structured result and the receipt id and status in _meta', async () => {
    const r = await legacy.client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt' } });
    assert.equal(r.isError, undefined);
    const sc = r.structuredContent as { path: string; content: string; total_lines: number };
    assert.equal(sc.path, 'src/a.txt');
    assert.equal(sc.content, 'alpha\nbeta\n');
    assert.equal(r._meta?.['toolgate/status'], 'succeeded');
    assert.equal(r._meta?.['toolgate/task_id'], TASK);
    assert.match(String(r._meta?.['toolgate/receipt_id']), /\S+/);
    // The text is the page as a model reads it (cat -n numbered), then the receipt id (issue 12).
    const content = r.content as { type: string; text: string }[];
    assert.equal(content[0]?.text, `fs.read src/a.txt: lines 1-2 of 2 (cat -n: number, tab, line; the numbers are not part of the file):\n     1\talpha\n     2\tbeta\nreceipt ${String(r._meta?.['toolgate/receipt_id'])}`);
  });

  it('turns a denied path into an isError result carrying policy_denied, and reads nothing', async () => {
    const r = await legacy.client.callTool({ name: 'fs_read', arguments: { path: 'private/b.txt' } });
    assert.equal(r.isError, true);
    const sc = r.structuredContent as { status: string; error: { code: string }; receipt_id: string };
    assert.equal(sc.status, 'denied');
    assert.equal(sc.error.code, 'policy_denied');
    assert.equal(r._meta?.['toolgate/status'], 'denied');
    assert.equal(r._meta?.['toolgate/receipt_id'], sc.receipt_id);
    assert.doesNotMatch(JSON.stringify(r), /secret/);
  });

  it('refuses invalid arguments and unknown tools with typed codes in isError results', async () => {
    const bad = await legacy.client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt', extra: 1 } });
    assert.equal(bad.isError, true);
    assert.equal((bad.structuredContent as { error: { code: string } }).error.code, 'invalid_arguments');
    const unknown = await legacy.client.callTool({ name: 'fs_nosuch', arguments: {} });
    assert.equal(unknown.isError, true);
    assert.equal((unknown.structuredContent as { error: { code: string } }).error.code, 'unknown_tool');
    assert.equal(unknown._meta?.['toolgate/tool'], 'fs.nosuch');
  });

  it('forwards progress for a call that carries a progress token', async () => {
    const seen: number[] = [];
    const r = await legacy.client.callTool({ name: 'test_slow', arguments: { label: 'p1', ms: 400 } }, { onprogress: (p) => seen.push(p.progress) });
    assert.equal(r.isError, undefined);
    assert.ok(seen.length >= 3, `progress notifications: ${seen.length}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
  });

  it('cancellation from the client stops the running tool and its receipt says cancelled', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const call = legacy.client.callTool({ name: 'test_slow', arguments: { label: 'c1', ms: 20_000 } }, { signal: ac.signal });
    assert.ok(await waitFor(() => ledgerLines(ledger).includes('start c1'), 10_000), 'tool started');
    ac.abort();
    await assert.rejects(call, (e: Error) => /abort/i.test(e.message));
    assert.ok(await waitFor(() => ledgerLines(ledger).includes('abort c1'), 5_000), 'tool saw the abort');
    assert.ok(Date.now() - started < 15_000);
    assert.ok(!ledgerLines(ledger).includes('end c1'));
  });

  it('a client that goes away mid-call stops the call, and the server process exits', async () => {
    const other = await connect({ ...config, taskId: 'mcp-gone-task' }, 'legacy');
    const pid = other.transport.pid ?? assert.fail('no child pid');
    const call = other.client.callTool({ name: 'test_slow', arguments: { label: 'gone1', ms: 20_000 } });
    assert.ok(await waitFor(() => ledgerLines(ledger).includes('start gone1'), 10_000), 'tool started');
    await other.client.close();
    await assert.rejects(call);
    assert.ok(await waitFor(() => !alive(pid), 10_000), 'server process exited');
    assert.ok(ledgerLines(ledger).includes('abort gone1'), 'the tool saw its signal abort');
    assert.ok(!ledgerLines(ledger).includes('end gone1'));
  });

  it('serves a 2026-07-28 client from the same server', async () => {
    const modern = await connect({ ...config, taskId: 'mcp-modern-task' }, '2026-07-28');
    try {
      assert.equal(modern.client.getNegotiatedProtocolVersion(), '2026-07-28');
      const { tools } = await modern.client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), EXPECTED_TOOLS);
      const r = await modern.client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt' } });
      assert.equal((r.structuredContent as { content: string }).content, 'alpha\nbeta\n');
      assert.equal(r._meta?.['toolgate/status'], 'succeeded');
      const denied = await modern.client.callTool({ name: 'fs_read', arguments: { path: 'private/b.txt' } });
      assert.equal((denied.structuredContent as { error: { code: string } }).error.code, 'policy_denied');
    } finally {
      await modern.client.close();
    }
  });

  it('ends the server process when the client closes, with every receipt durable', async () => {
    const pid = legacy.transport.pid ?? assert.fail('no child pid');
    await legacy.client.close();
    assert.ok(await waitFor(() => !alive(pid), 10_000), 'server process exited');
    const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: [...builtinTools(), slowTool(ledger)] });
    try {
      const receipts = await rt.store.listReceipts({ task: TASK as never });
      const statuses = receipts.map((r) => `${r.tool} ${r.status}`).sort();
      assert.deepEqual(statuses, [
        'fs.nosuch failed',
        'fs.read denied',
        'fs.read failed',
        'fs.read succeeded',
        'test.slow cancelled',
        'test.slow succeeded',
      ]);
      assert.equal((await rt.store.verifyChain(TASK as never)).ok, true);
      const gone = await rt.store.listReceipts({ task: 'mcp-gone-task' as never });
      assert.deepEqual(gone.map((r) => `${r.tool} ${r.status}`), ['test.slow cancelled']);
    } finally {
      await rt.close();
    }
  });
});
