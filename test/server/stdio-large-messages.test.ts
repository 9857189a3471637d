// A message larger than the stdio bound is answered with an error and the connection goes on
// (the SDK's transport closed the connection: every call in flight on it was lost); a message
// is joined once from its chunks (the SDK's join was quadratic in its length).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { LineStdioTransport, requestIdOf } from '../../src/server/stdio-transport.js';
import { tempDirs } from '../support/fixtures.js';
import { joinedBytes } from '../support/joined-bytes.js';

const MAIN = join(import.meta.dirname, '../support/mcp-stdio-main.ts');

void describe('requestIdOf', () => {
  void it('finds the outer id at the start or closing the message, never one inside params', () => {
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"na', ''), 7);
    assert.equal(requestIdOf('{"jsonrpc":"2.0", "id" : "a\\"b","method":"x"', ''), 'a"b');
    // The SDK's client writes the id last: found in the tail, after an `id` inside params at the start.
    assert.equal(requestIdOf('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":3,"content":"xx', 'xxx"}},"id":12}\n'), 12);
    assert.equal(requestIdOf('{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":3,"content":"xx', 'xxx","id":4}}}'), null);
    assert.equal(requestIdOf('{"method":"x","params":{"text":"\\"id\\":5"', '"}}'), null);
    assert.equal(requestIdOf('{"method":"notifications/x","params":{"a":"', '"}}'), null);
  });
});

/** A transport over in-memory streams, fed `text` in chunks of `size` bytes from one reused buffer. */
async function feed(text: string, size: number, maxMessageBytes: number): Promise<{ delivered: JSONRPCMessage[]; written: JSONRPCMessage[]; errors: string[] }> {
  const input = new PassThrough();
  const output = new PassThrough();
  const t = new LineStdioTransport(input, output, { maxMessageBytes });
  const delivered: JSONRPCMessage[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => void delivered.push(m);
  t.onerror = (e) => void errors.push(e.message);
  await t.start();
  const written: JSONRPCMessage[] = [];
  output.on('data', (c: Buffer) => {
    for (const line of c.toString().split('\n')) if (line) written.push(JSON.parse(line) as JSONRPCMessage);
  });
  const bytes = Buffer.from(text);
  const chunk = Buffer.alloc(size);
  for (let at = 0; at < bytes.length; at += size) {
    const n = bytes.copy(chunk, 0, at, at + size);
    input.write(Buffer.from(chunk.subarray(0, n)));
  }
  await new Promise((resolve) => setImmediate(resolve));
  await t.close();
  return { delivered, written, errors };
}

void describe('LineStdioTransport', () => {
  void it('answers a request over the bound with limit_exceeded, by the id at either end, and reads on', async () => {
    const big = 'x'.repeat(3000);
    const text = [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"fs_write","arguments":{"id":99,"content":"${big}"}},"id":2}`,
      `{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"arguments":{"content":"${big}"}}}`,
      'not json at all',
      `{"jsonrpc":"2.0","method":"notifications/big","params":{"content":"${big}"}}`,
      '{"jsonrpc":"2.0","id":4,"method":"ping"}\r',
      '',
    ].join('\n');
    for (const size of [7, 1000, 64 * 1024]) {
      const { delivered, written, errors } = await feed(text, size, 1000);
      assert.deepEqual(delivered, [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 4, method: 'ping' },
      ], `chunks of ${size}`);
      assert.deepEqual(
        written.map((m) => [(m as { id: unknown }).id, (m as { error: { code: number; data: { code: string; value: number } } }).error.code, (m as { error: { data: { code: string; value: number } } }).error.data]),
        [
          [2, -32600, { code: 'limit_exceeded', limit: 'message_bytes', value: 1000, bytes: Buffer.byteLength(text.split('\n')[1] as string) }],
          ['three', -32600, { code: 'limit_exceeded', limit: 'message_bytes', value: 1000, bytes: Buffer.byteLength(text.split('\n')[2] as string) }],
        ],
      );
      // The notification has no id: skipped and reported, nothing answered.
      assert.equal(errors.length, 3);
      assert.match(errors[2] as string, /no request id found/);
    }
  });

  void it('finds an id that closes the message in the chunk where it passes the bound', async () => {
    // All but the last 4 bytes held, then `:5}` and the newline: the id's key is in what was held.
    const body = `{"jsonrpc":"2.0","method":"x","params":{"c":"${'x'.repeat(10_000)}"},"id":5}\n`; // longer than the 4 KiB kept at its start
    const input = new PassThrough();
    const output = new PassThrough();
    const t = new LineStdioTransport(input, output, { maxMessageBytes: body.length - 3 });
    await t.start();
    const written: string[] = [];
    output.on('data', (c: Buffer) => void written.push(c.toString()));
    input.write(body.slice(0, body.length - 4));
    input.write(body.slice(body.length - 4));
    await new Promise((resolve) => setImmediate(resolve));
    await t.close();
    assert.equal((JSON.parse(written.join('')) as { id: number }).id, 5);
  });

  void it('sends the answers made in one turn in one write, in order', async () => {
    // Each write to a pipe is a syscall and wakes the client: the answers of calls one receipt
    // batch committed are made in one turn and leave together.
    const writes: string[][] = [];
    const output = new Writable({
      writev(chunks, done) {
        writes.push(chunks.map((c) => String(c.chunk)));
        done();
      },
      write(chunk, _enc, done) {
        writes.push([String(chunk)]);
        done();
      },
    });
    const t = new LineStdioTransport(new PassThrough(), output);
    await t.start();
    const ping = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });
    const sent = [t.send(ping(1)), Promise.resolve().then(() => t.send(ping(2))), t.send(ping(3))];
    await Promise.all(sent);
    await new Promise((resolve) => setImmediate(resolve));
    await t.send(ping(4));
    await new Promise((resolve) => setImmediate(resolve));
    await t.close();
    const ids = writes.map((w) => w.flatMap((c) => c.split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { id: number }).id)));
    assert.deepEqual(ids, [[1, 3, 2], [4]]);
  });

  void it('joins a message of many chunks once', async () => {
    const content = 'y'.repeat(4 * 1024 * 1024);
    const { result: r, joined } = await joinedBytes(() => feed(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"c":"${content}"}}\n`, 64 * 1024, 64 * 1024 * 1024));
    assert.equal((r.delivered[0] as unknown as { params: { c: string } }).params.c, content);
    // Once (the SDK's transport joined at each of the 64 chunks: 130 MiB).
    assert.ok(joined <= content.length + 64 * 1024, `joined ${joined} bytes`);
  });
});

void describe('over stdio with a real SDK client', () => {
  const dirs = tempDirs('tg-mcp-large');
  let client: Client;
  before(async () => {
    client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', MAIN, JSON.stringify({ workspace: dirs.workspace, state: dirs.state, ledger: join(dirs.base, 'ledger'), grant: { tools: ['*'], effects: ['read', 'write'], read: ['**'], write: ['**'] }, maxMessageBytes: 1024 * 1024 })],
        stderr: 'ignore',
      }),
    );
  });
  after(async () => {
    await client.close().catch(() => {});
    dirs.cleanup();
  });

  void it('a call over the bound is refused with limit_exceeded, and the connection serves the next call', async () => {
    await assert.rejects(
      client.callTool({ name: 'fs_write', arguments: { path: 'big.txt', content: 'z'.repeat(2 * 1024 * 1024) } }, { timeout: 60_000 }),
      (e: Error & { code?: number; data?: { code?: string } }) => {
        assert.equal(e.code, -32600);
        assert.equal(e.data?.code, 'limit_exceeded');
        return true;
      },
    );
    const r = await client.callTool({ name: 'fs_write', arguments: { path: 'small.txt', content: 'ok\n' } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
  });
});
