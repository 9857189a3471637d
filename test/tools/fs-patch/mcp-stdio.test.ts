// The text a model reads for a line-range edit and for a refused stale one, through a real MCP
// SDK client talking to the built `toolgate serve --stdio` in a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../../support/fixtures.js';
import { alive, waitFor } from '../../support/processes.js';

const BIN = join(import.meta.dirname, '../../../dist/src/cli/main.js');

function textOf(r: { content?: unknown }): string {
  return ((r.content ?? []) as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n');
}

void test('over MCP stdio: a line-range edit shows its diff and where it landed; a stale one shows the lines there now', async () => {
  const d = tempDirs('tg-patch-mcp');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'patch-mcp'],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'patch-test', version: '1.0.0' });
  try {
    writeFileSync(join(d.workspace, 'app.py'), 'def main():\n    print("hi")\n    return 0\n');
    await client.connect(transport);

    const ok = await client.callTool({
      name: 'fs_patch',
      arguments: { files: [{ path: 'app.py', edits: [{ lines: '2:3', new: '    print("hello")\n    return 1\n', expect: '    print("hi")\n    return 0' }] }] },
    });
    assert.notEqual(ok.isError, true, textOf(ok));
    // The model reads where the edit landed and the diff itself, as text.
    const okText = textOf(ok);
    assert.ok(okText.includes('-    print("hi")\n-    return 0\n+    print("hello")\n+    return 1\n'), okText);
    assert.match(okText, /^fs\.patch applied: 1 file, revision r\d+\nmodified app\.py: 1 hunk; edit 1: lines 2-3\n/, okText);
    assert.equal(readFileSync(join(d.workspace, 'app.py'), 'utf8'), 'def main():\n    print("hello")\n    return 1\n');

    // The model retries its old edit, aimed at the text it read before.
    const stale = await client.callTool({
      name: 'fs_patch',
      arguments: { files: [{ path: 'app.py', edits: [{ lines: '2', new: '    print("bye")\n', expect: '    print("hi")' }] }] },
    });
    assert.equal(stale.isError, true);
    const staleText = textOf(stale);
    assert.match(staleText, /precondition_failed/, staleText);
    assert.match(staleText, /line 2 of app\.py is not the expected text/, staleText);
    assert.match(staleText, / {5}2\t {4}print\("hello"\)/, staleText);
    assert.match(staleText, /receipt [0-9A-Za-z_-]+/, staleText);
    assert.equal((stale.structuredContent as { error: { data: { reason: string } } }).error.data.reason, 'stale_lines');
    assert.equal(readFileSync(join(d.workspace, 'app.py'), 'utf8'), 'def main():\n    print("hello")\n    return 1\n');
  } finally {
    const pid = transport.pid;
    await client.close().catch(() => {});
    if (pid !== null && pid !== undefined) assert.ok(await waitFor(() => !alive(pid), 10_000), 'server exited');
    d.cleanup();
  }
});
