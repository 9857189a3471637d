// Under a canary, an MCP session (one task) is listed the version it will call: `toolgate serve
// --http` sessions through a real SDK client, each checked against the receipt of its own call.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRuntime } from '../../src/runtime/index.js';
import { serveMcpHttp } from '../../src/server/index.js';
import { inCanary } from '../../src/registry/index.js';
import type { ReceiptId } from '../../src/protocol/index.js';
import { tempDirs } from '../support/fixtures.js';
import { probeTool } from '../support/probe-tools.js';

describe('rollout over MCP', () => {
  it('each HTTP session is listed the version its task pins, canary or not', async () => {
    const d = tempDirs('tg-rollout-mcp');
    const tools = [probeTool({ ledger: join(d.base, 'l1') }), probeTool({ ledger: join(d.base, 'l2'), version: '2.0.0' })];
    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, tools, rollout: { 'test.effect': { canary: { version: '2.0.0', share: 0.5 } } } });
    const http = await serveMcpHttp(rt, { port: 0 });
    try {
      const seen: { listed: unknown; called: string | null; canary: boolean }[] = [];
      for (let i = 0; i < 10; i++) {
        const client = new Client({ name: 'rollout-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
        try {
          const listed = (await client.listTools()).tools.find((t) => t.name === 'test_effect')?._meta?.['toolgate/version'];
          const r = await client.callTool({ name: 'test_effect', arguments: { label: `s${i}` } });
          const receipt = await rt.store.getReceipt(r._meta?.['toolgate/receipt_id'] as ReceiptId);
          assert.ok(receipt);
          seen.push({ listed, called: receipt.tool_version, canary: inCanary(receipt.task_id, 'test.effect', '2.0.0', 0.5) });
        } finally {
          await client.close();
        }
      }
      for (const s of seen) {
        assert.equal(s.listed, s.called, 'listed what it calls');
        assert.equal(s.called, s.canary ? '2.0.0' : '1.0.0');
      }
    } finally {
      await http.close();
      await rt.close();
      d.cleanup();
    }
  });
});
