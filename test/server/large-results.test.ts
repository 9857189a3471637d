// Large files over MCP stdio: read in bounded pages, no message near the 10 MiB that makes a
// stdio client drop the connection, and an escape-heavy page withheld instead of sent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';

const MAIN = join(import.meta.dirname, '../support/mcp-stdio-main.ts');
const MIB = 1024 * 1024;
const STDIO_LIMIT = 10 * MIB;

interface Page {
  readonly content: string;
  readonly truncated: boolean;
  readonly continuation: string | null;
  readonly sha256: string;
}

describe('large results over MCP stdio', () => {
  const dirs = tempDirs('tg-mcp-large');
  let client: Client;
  const hash = createHash('sha256');

  before(async () => {
    // 64 MiB of text lines, each distinct so a lost or repeated page changes the digest.
    const fd = openSync(join(dirs.workspace, 'big.txt'), 'w');
    const block: string[] = [];
    for (let i = 0; i < 16 * 1024; i++) block.push(`line ${String(i).padStart(8, '0')} ${'x'.repeat(49)}\n`);
    const chunk = Buffer.from(block.join('')); // 1 MiB
    for (let i = 0; i < 64; i++) {
      const c = Buffer.from(chunk);
      c.write(String(i).padStart(4, '0'), 0); // mark each MiB
      writeSync(fd, c);
      hash.update(c);
    }
    closeSync(fd);
    // Valid UTF-8 without NUL, so it reads as text, but every byte becomes six in JSON.
    writeFileSync(join(dirs.workspace, 'controls.txt'), Buffer.alloc(2 * MIB, 1));
    client = new Client({ name: 'toolgate-large', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', MAIN, JSON.stringify({ workspace: dirs.workspace, state: dirs.state, ledger: join(dirs.base, 'ledger') })],
        stderr: 'inherit',
      }),
    );
  });

  after(async () => {
    await client.close();
    dirs.cleanup();
  });

  it('reads a 64 MiB file in 4 MiB pages that reassemble to the exact bytes, no message over 10 MiB', async () => {
    const got = createHash('sha256');
    let continuation: string | null = null;
    let pages = 0;
    let largest = 0;
    do {
      const r = await client.callTool({
        name: 'fs_read',
        arguments: { path: 'big.txt', max_bytes: 4 * MIB, ...(continuation === null ? {} : { continuation }) },
      });
      largest = Math.max(largest, Buffer.byteLength(JSON.stringify(r)));
      assert.equal(r.isError, undefined, JSON.stringify(r).slice(0, 300));
      const page = r.structuredContent as unknown as Page;
      got.update(page.content);
      continuation = page.truncated ? page.continuation : null;
      pages++;
    } while (continuation !== null && pages < 100);
    assert.equal(got.digest('hex'), hash.digest('hex'));
    assert.ok(pages >= 16, `pages: ${pages}`);
    assert.ok(largest < STDIO_LIMIT / 2, `largest message ${largest} bytes`);
  });

  it('sends a page whose JSON would exceed the stdio bound as an artifact reference, and the connection stays up', async () => {
    const r = await client.callTool({ name: 'fs_read', arguments: { path: 'controls.txt', max_bytes: 2 * MIB } });
    assert.equal(r.isError, undefined);
    assert.ok(Buffer.byteLength(JSON.stringify(r)) < 64 * 1024);
    const sc = r.structuredContent as { artifact: string; bytes: number; inline: boolean };
    assert.equal(sc.inline, false);
    assert.ok(sc.bytes > STDIO_LIMIT, `the page is ${sc.bytes} bytes as JSON`);
    assert.match(String((r.content as { text: string }[])[0]?.text), /too large to send/);
    const small = await client.callTool({ name: 'fs_read', arguments: { path: 'controls.txt', max_bytes: 1024 } });
    assert.equal(small.isError, undefined);
  });
});
