// Clients built on SDK 1.32 (2025-11-25 only) against both transports. They validate the
// structuredContent of isError results against outputSchema, which is why the error shape is
// part of it (docs/mcp-notes.md).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../src/server/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { tempDirs } from '../support/fixtures.js';
import { ledgerLines } from '../support/probe-tools.js';
import { slowTool } from '../support/slow-tool.js';
import { waitFor } from '../support/processes.js';

const MAIN = join(import.meta.dirname, '../support/mcp-stdio-main.ts');
const GRANT = { tools: ['*'], effects: ['read' as const], read: ['src/**'], write: [] };

describe('SDK 1.32 clients', () => {
  const dirs = tempDirs('tg-sdk1');
  const ledger = join(dirs.base, 'ledger');
  let rt: Runtime;
  let serving: HttpServing;

  before(async () => {
    mkdirSync(join(dirs.workspace, 'src'));
    writeFileSync(join(dirs.workspace, 'src/a.txt'), 'alpha\n');
    writeFileSync(join(dirs.workspace, 'private.txt'), 'secret\n');
    rt = await createRuntime({ workspace: dirs.workspace, stateDir: join(dirs.base, 'state-http'), tools: [...builtinTools(), slowTool(ledger)], grant: GRANT });
    serving = await serveMcpHttp(rt, { port: 0 });
  });

  after(async () => {
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  const transports = {
    stdio: () =>
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', MAIN, JSON.stringify({ workspace: dirs.workspace, state: dirs.state, ledger, grant: GRANT })],
        stderr: 'inherit',
      }),
    http: () => new StreamableHTTPClientTransport(new URL(serving.url)),
  };

  for (const [kind, make] of Object.entries(transports)) {
    it(`over ${kind}: calls fs_read, gets policy_denied as a valid isError result, and cancels a running call`, async () => {
      const client = new Client({ name: 'sdk1', version: '1.0.0' });
      await client.connect(make());
      try {
        await client.listTools(); // the client caches output schemas and validates against them
        const ok = await client.callTool({ name: 'fs_read', arguments: { path: 'src/a.txt' } });
        assert.equal((ok.structuredContent as { content: string }).content, 'alpha\n');
        const denied = await client.callTool({ name: 'fs_read', arguments: { path: 'private.txt' } });
        assert.equal(denied.isError, true);
        assert.equal((denied.structuredContent as { error: { code: string } }).error.code, 'policy_denied');
        const label = `sdk1-${kind}`;
        const ac = new AbortController();
        const call = client.callTool({ name: 'test_slow', arguments: { label, ms: 20_000 } }, undefined, { signal: ac.signal });
        assert.ok(await waitFor(() => ledgerLines(ledger).includes(`start ${label}`), 10_000), 'tool started');
        ac.abort();
        await assert.rejects(call);
        assert.ok(await waitFor(() => ledgerLines(ledger).includes(`abort ${label}`), 5_000), 'tool saw the abort');
      } finally {
        await client.close();
      }
    });
  }
});
