import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../src/server/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { tempDirs } from '../support/fixtures.js';
import { ledgerLines } from '../support/probe-tools.js';
import { slowTool } from '../support/slow-tool.js';
import { waitFor } from '../support/processes.js';

/** Every current registry tool under its MCP name, plus the test tool. */
const EXPECTED_TOOLS = [...new Set(builtinTools().map((t) => t.name.replace(/\./g, '_'))), 'test_slow'].sort();

type Era = 'legacy' | '2026-07-28';

async function connect(url: string, era: Era, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'toolgate-http-test', version: '1.0.0' }, era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('MCP server over Streamable HTTP, both protocol eras', () => {
  const dirs = tempDirs('tg-mcp-http');
  const ledger = join(dirs.base, 'ledger');
  let rt: Runtime;
  let serving: HttpServing;

  before(async () => {
    mkdirSync(join(dirs.workspace, 'src'));
    writeFileSync(join(dirs.workspace, 'src/a.txt'), 'alpha\n');
    writeFileSync(join(dirs.workspace, 'private.txt'), 'secret\n');
    rt = await createRuntime({
      workspace: dirs.workspace,
      stateDir: dirs.state,
      tools: [...builtinTools(), slowTool(ledger)],
      grant: { tools: ['*'], effects: ['read'], read: ['src/**'], write: [] },
    });
    serving = await serveMcpHttp(rt, { port: 0, taskId: 'http-modern-task' });
  });

  after(async () => {
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  it('listens on loopback by default', () => {
    assert.match(serving.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  for (const era of ['legacy', '2026-07-28'] as const) {
    it(`lists tools and calls fs_read for a ${era} client, receipt id in _meta`, async () => {
      const client = await connect(serving.url, era);
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), era === 'legacy' ? '2025-11-25' : era);
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), EXPECTED_TOOLS);
        const r = await client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt' } });
        assert.equal((r.structuredContent as { content: string }).content, 'alpha\n');
        const id = String(r._meta?.['toolgate/receipt_id']);
        assert.equal((await rt.getReceipt(id))?.status, 'succeeded');
        const denied = await client.callTool({ name: 'fs_read', arguments: { path: 'private.txt' } });
        assert.equal(denied.isError, true);
        assert.equal((denied.structuredContent as { error: { code: string } }).error.code, 'policy_denied');
      } finally {
        await client.close();
      }
    });

    it(`forwards progress to a ${era} client that sent a progress token`, async () => {
      const client = await connect(serving.url, era);
      try {
        const seen: number[] = [];
        const r = await client.callTool({ name: 'test_slow', arguments: { label: `progress-${era}`, ms: 300 } }, { onprogress: (p) => seen.push(p.progress) });
        assert.equal(r._meta?.['toolgate/status'], 'succeeded');
        assert.ok(seen.length >= 2, `progress notifications: ${seen.length}`);
      } finally {
        await client.close();
      }
    });

    it(`cancellation from a ${era} client reaches the running call; its receipt says cancelled`, async () => {
      const client = await connect(serving.url, era);
      const label = `cancel-${era}`;
      try {
        const cancelledBefore = await cancelledSlowCalls(rt);
        const ac = new AbortController();
        const call = client.callTool({ name: 'test_slow', arguments: { label, ms: 20_000 } }, { signal: ac.signal });
        assert.ok(await waitFor(() => ledgerLines(ledger).includes(`start ${label}`), 10_000), 'tool started');
        ac.abort();
        await assert.rejects(call);
        assert.ok(await waitFor(() => ledgerLines(ledger).includes(`abort ${label}`), 5_000), 'tool saw the abort');
        assert.ok(!ledgerLines(ledger).includes(`end ${label}`));
        assert.ok(await waitFor(async () => (await cancelledSlowCalls(rt)) === cancelledBefore + 1, 5_000), 'a cancelled receipt was committed');
      } finally {
        await client.close();
      }
    });
  }

  it('passes an idempotency key from request _meta into the envelope: a repeat is a replay', async () => {
    const client = await connect(serving.url, 'legacy');
    try {
      const call = () => client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt' }, _meta: { 'toolgate/idempotency_key': 'read-once-1' } });
      const first = await call();
      const second = await call();
      assert.equal(first._meta?.['toolgate/replay'], undefined);
      assert.equal(second._meta?.['toolgate/replay'], true);
      assert.equal(second._meta?.['toolgate/receipt_id'], first._meta?.['toolgate/receipt_id']);
      const bad = await client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt' }, _meta: { 'toolgate/deadline': 'tomorrow' } });
      assert.equal((bad.structuredContent as { error: { code: string } }).error.code, 'invalid_request');
    } finally {
      await client.close();
    }
  });

  it('refuses a foreign Origin, a foreign Host and an oversized body before anything runs', async () => {
    const before_ = (await rt.store.listReceipts({})).length;
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const evil = await fetch(serving.url, { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body: INIT });
    assert.equal(evil.status, 403);
    assert.match(await evil.text(), /Invalid Origin/);
    const local = await fetch(serving.url, { method: 'POST', headers: { ...headers, origin: 'http://localhost:5173' }, body: INIT });
    assert.equal(local.status, 200);
    await local.body?.cancel();
    // fetch() will not send a Host of our choosing; node:http will.
    assert.equal(await rawPost(serving.url, { ...headers, host: 'evil.example' }, INIT), 403);
    const huge = await fetch(serving.url, { method: 'POST', headers, body: ' '.repeat(5 * 1024 * 1024) });
    assert.equal(huge.status, 413);
    assert.equal((await rt.store.listReceipts({})).length, before_);
  });

  it('closing the server aborts running calls; their receipts say cancelled', async () => {
    const own = await serveMcpHttp(rt, { port: 0 });
    const client = await connect(own.url, 'legacy');
    const cancelledBefore = await cancelledSlowCalls(rt);
    const call = client.callTool({ name: 'test_slow', arguments: { label: 'shutdown', ms: 20_000 } });
    call.catch(() => {});
    assert.ok(await waitFor(() => ledgerLines(ledger).includes('start shutdown'), 10_000), 'tool started');
    await own.close();
    assert.ok(await waitFor(() => ledgerLines(ledger).includes('abort shutdown'), 5_000), 'tool saw the abort');
    assert.ok(await waitFor(async () => (await cancelledSlowCalls(rt)) === cancelledBefore + 1, 5_000));
    await client.close().catch(() => {});
  });

  it('requires the bearer token when one is configured', async () => {
    const guarded = await serveMcpHttp(rt, { port: 0, bearerToken: 'tok-123' });
    try {
      await assert.rejects(connect(guarded.url, 'legacy'));
      await assert.rejects(connect(guarded.url, 'legacy', { authorization: 'Bearer wrong' }));
      const client = await connect(guarded.url, 'legacy', { authorization: 'Bearer tok-123' });
      const r = await client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt' } });
      assert.equal(r._meta?.['toolgate/status'], 'succeeded');
      await client.close();
    } finally {
      await guarded.close();
    }
  });
});

function rawPost(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once('error', reject);
    req.end(body);
  });
}

async function cancelledSlowCalls(rt: Runtime): Promise<number> {
  return (await rt.store.listReceipts({})).filter((r) => r.tool === 'test.slow' && r.status === 'cancelled').length;
}
