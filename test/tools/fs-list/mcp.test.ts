// fs.list through the built CLI's MCP server over stdio, with the SDK client: the text content a
// model reads is the indented tree, links and omissions said in words, no outside path.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { makeTree } from './fixture.js';
import { tempDirs } from '../../support/fixtures.js';
import { alive, waitFor } from '../../support/processes.js';

const BIN = join(import.meta.dirname, '../../../dist/src/cli/main.js');

interface TextResult {
  readonly content: { type: string; text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

describe('fs_list over stdio with a real MCP SDK client (built CLI)', () => {
  let tree: ReturnType<typeof makeTree>;
  let state: ReturnType<typeof tempDirs>;
  let client: Client;
  let transport: StdioClientTransport;

  before(async () => {
    tree = makeTree();
    state = tempDirs('tg-list-mcp');
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--stdio', '--workspace', tree.root, '--state-dir', state.state, '--task', 'list-mcp'],
      stderr: 'inherit',
    });
    client = new Client({ name: 'fs-list-test', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    const pid = transport.pid;
    await client.close().catch(() => {});
    if (pid) await waitFor(() => !alive(pid), 10_000);
    tree.cleanup();
    state.cleanup();
  });

  const call = async (args: Record<string, unknown>): Promise<TextResult> => (await client.callTool({ name: 'fs_list', arguments: args })) as TextResult;

  it('is listed as a read-only tool', async () => {
    const { tools } = await client.listTools();
    const t = tools.find((x) => x.name === 'fs_list');
    assert.ok(t, 'fs_list is offered');
    assert.equal(t.annotations?.readOnlyHint, true);
  });

  it('answers with the tree as text: sizes, links, omitted counts, the receipt', async () => {
    const r = await call({});
    assert.equal(r.isError, undefined);
    const text = r.content[0]?.text ?? '';
    const lines = text.split('\n');
    assert.equal(
      lines[0],
      './  (13 entries, depth 2; omitted: 2 ignored by .gitignore (include_ignored: true lists them), 1 generated (node_modules/, dist/; include_generated: true lists them), 2 secret (never listed))',
    );
    assert.deepEqual(lines.slice(1, -1), [
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
    ]);
    // The one result-text renderer ends every success with its receipt (src/server/result-text).
    assert.match(lines.at(-1) ?? '', /^receipt rcpt_\S+$/);
    assert.ok(!text.includes(tree.outside) && !text.includes('passwd') && !text.includes('hunter2'));
    assert.equal((r.structuredContent?.['entries'] as unknown[]).length, 13);
  });

  it('a truncated page says how many entries are left and how to continue; the continuation works', async () => {
    const r = await call({ depth: 3, max_entries: 5 });
    const text = r.content[0]?.text ?? '';
    const token = r.structuredContent?.['continuation'];
    assert.equal(typeof token, 'string');
    assert.ok(text.includes(`… 10 more entries not shown; call fs.list again with "continuation": ${JSON.stringify(token)}`), text);
    const next = await call({ depth: 3, max_entries: 50, continuation: token });
    const rest = (next.structuredContent?.['entries'] as { path: string }[]).map((e) => e.path);
    assert.equal(rest.length, 10);
    assert.equal(rest[0], 'env-link');
  });

  it('a refused path is an error whose text names the code', async () => {
    const r = await call({ path: '../outside' });
    assert.equal(r.isError, true);
    assert.match(r.content[0]?.text ?? '', /path_escape/);
  });
});
