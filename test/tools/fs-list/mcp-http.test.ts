// fs.list through the MCP server over Streamable HTTP, with the SDK client of both protocol eras:
// the text content a model reads is the same indented tree as over stdio (mcp.test.ts), a page
// says how to continue and the continuation works over HTTP, a refusal's text names its code.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../../src/server/index.js';
import { makeTree } from './fixture.js';

interface TextResult {
  readonly content: { type: string; text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly _meta?: Record<string, unknown>;
}

const TREE_LINES = [
  './  (13 entries, depth 2; omitted: 2 ignored by .gitignore (include_ignored: true lists them), 1 generated (node_modules/, dist/; include_generated: true lists them), 2 secret (never listed))',
  '  .gitignore  13 B',
  '  README.md  7 B',
  '  app-link.ts -> src/app.ts  (link)',
  '  dangling -> nowhere.txt  (dangling link)',
  '  empty/',
  '  env-link -> (link to a secret path, not shown)',
  '  keys/',
  '  out-abs -> (link out of the workspace, not followed)',
  '  out-rel -> (link out of the workspace, not followed)',
  '  src/',
  '    app.ts  22 B',
  '    lib/',
  '    lib-link -> src/lib/  (link)',
];

describe('fs_list over Streamable HTTP with a real MCP SDK client', () => {
  let tree: ReturnType<typeof makeTree>;
  let state: string;
  let rt: Runtime;
  let serving: HttpServing;

  before(async () => {
    tree = makeTree();
    state = mkdtempSync(join(tmpdir(), 'tg-list-http-'));
    rt = await createRuntime({ workspace: tree.root, stateDir: state, grant: { tools: ['*'], effects: ['read'], read: ['**', '.'], write: [] } });
    serving = await serveMcpHttp(rt, { port: 0, taskId: 'list-http' });
  });
  after(async () => {
    await serving.close();
    await rt.close();
    tree.cleanup();
    rmSync(state, { recursive: true, force: true });
  });

  for (const era of ['legacy', '2026-07-28'] as const) {
    it(`a ${era} client reads the tree as text, pages through it, and reads a refusal`, async () => {
      const client = new Client({ name: 'fs-list-http', version: '1.0.0' }, era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
      try {
        const call = async (args: Record<string, unknown>): Promise<TextResult> => (await client.callTool({ name: 'fs_list', arguments: args })) as TextResult;
        const r = await call({});
        assert.equal(r.isError, undefined);
        const text = r.content.map((c) => c.text).join('\n');
        const lines = text.split('\n');
        assert.deepEqual(lines.slice(0, -1), TREE_LINES);
        const receiptId = String(r._meta?.['toolgate/receipt_id']);
        assert.equal(lines.at(-1), `receipt ${receiptId}`);
        assert.ok(!text.includes(tree.outside) && !text.includes('passwd') && !text.includes('hunter2'), text);

        const page = await call({ depth: 3, max_entries: 5 });
        const pageText = page.content[0]?.text ?? '';
        const token = page.structuredContent?.['continuation'];
        assert.equal(typeof token, 'string');
        assert.ok(pageText.includes(`… 10 more entries not shown; call fs.list again with "continuation": ${JSON.stringify(token)}`), pageText);
        const next = await call({ depth: 3, max_entries: 50, continuation: token });
        const nextText = next.content[0]?.text ?? '';
        assert.equal(next.isError, undefined, nextText);
        assert.ok(nextText.includes('env-link -> (link to a secret path, not shown)'), nextText);
        assert.equal((next.structuredContent?.['entries'] as unknown[]).length, 10);

        const refused = await call({ path: '../outside' });
        assert.equal(refused.isError, true);
        assert.equal(refused.content[0]?.text, `fs.list denied: path_escape: path climbs above the workspace root (receipt ${String(refused._meta?.['toolgate/receipt_id'])})`);
        const missing = await call({ path: 'nope' });
        assert.match(missing.content[0]?.text ?? '', /^fs\.list failed: not_found: no such directory: nope \(receipt rcpt_\S+\)$/);
      } finally {
        await client.close();
      }
    });
  }
});
