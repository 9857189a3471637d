// The HTTP limits: how defaults follow the open-file limit, which values are refused, and the two
// connection bounds the flood test does not reach (trickled headers, every connection busy).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { defaultMaxConnections } from '../../src/server/http-limits.js';
import { DESCRIPTOR_HEADROOM, resolveHttpLimits, serveMcpHttp } from '../../src/server/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { tempDirs } from '../support/fixtures.js';
import { ledgerLines } from '../support/probe-tools.js';
import { waitFor } from '../support/processes.js';
import { slowTool } from '../support/slow-tool.js';

describe('resolveHttpLimits', () => {
  it('takes half the open-file limit for connections, at most 1024, and documented defaults for the rest', () => {
    assert.deepEqual(resolveHttpLimits({}, 20_000), {
      maxConnections: 1024,
      connectionIdleMs: 5_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxSessions: 64,
      sessionIdleMs: 1_800_000,
      maxRequestBodyBytes: 4 * 1024 * 1024,
    });
    assert.equal(resolveHttpLimits({}, 1_024).maxConnections, 512);
    assert.equal(defaultMaxConnections(undefined), 512, 'open-file limit unknown');
  });

  it('refuses a connection cap that leaves the runtime fewer than DESCRIPTOR_HEADROOM descriptors', () => {
    assert.equal(resolveHttpLimits({ maxConnections: 4_096 - DESCRIPTOR_HEADROOM }, 4_096).maxConnections, 3_840);
    assert.throws(() => resolveHttpLimits({ maxConnections: 4_096 - DESCRIPTOR_HEADROOM + 1 }, 4_096), /at most 3840 may go to connections/);
  });

  it('refuses zero, fractions and a headers timeout longer than the request timeout; ignores other option keys', () => {
    assert.throws(() => resolveHttpLimits({ maxSessions: 0 }, 20_000), RangeError);
    assert.throws(() => resolveHttpLimits({ connectionIdleMs: 1.5 }, 20_000), RangeError);
    assert.throws(() => resolveHttpLimits({ headersTimeoutMs: 40_000 }, 20_000), /longer than requestTimeoutMs/);
    const withOthers = { port: 0, maxSessions: 3 } as Parameters<typeof resolveHttpLimits>[0];
    assert.equal(Object.keys(resolveHttpLimits(withOthers, 20_000)).length, 8);
  });
});

describe('serve --http connection bounds, in process', () => {
  const dirs = tempDirs('tg-http-limits');
  const ledger = join(dirs.base, 'ledger');
  let rt: Runtime;

  before(async () => {
    rt = await createRuntime({
      workspace: dirs.workspace,
      stateDir: dirs.state,
      tools: [...builtinTools(), slowTool(ledger)],
      grant: { tools: ['*'], effects: ['read'], read: ['**'], write: [] },
    });
  });

  after(async () => {
    await rt.close();
    dirs.cleanup();
  });

  it('a start on a port already in use rejects and leaves no interval behind', async () => {
    const first = await serveMcpHttp(rt, { port: 0 });
    // Unref'd intervals are not in getActiveResourcesInfo(): count the ones made and not cleared.
    const live = new Set<unknown>();
    const { setInterval: set, clearInterval: clear } = globalThis;
    globalThis.setInterval = ((...a: Parameters<typeof set>) => {
      const t = set(...a);
      live.add(t);
      return t;
    }) as typeof set;
    globalThis.clearInterval = ((t: Parameters<typeof clear>[0]) => {
      live.delete(t);
      clear(t);
    }) as typeof clear;
    try {
      await assert.rejects(serveMcpHttp(rt, { port: first.port }), (e: NodeJS.ErrnoException) => e.code === 'EADDRINUSE');
      assert.equal(live.size, 0, 'the failed start left an interval running');
    } finally {
      globalThis.setInterval = set;
      globalThis.clearInterval = clear;
      for (const t of live) clear(t as NodeJS.Timeout);
      await first.close();
    }
  });

  it('closes a connection that trickles its headers at the headers timeout', async () => {
    const own = await serveMcpHttp(rt, { port: 0, headersTimeoutMs: 1_000, connectionIdleMs: 1_000 });
    const socket = connect(own.port, '127.0.0.1');
    socket.on('error', () => {});
    // One byte every 200 ms: never idle long enough for the idle timeout, never done with its headers.
    const header = 'POST /mcp HTTP/1.1\r\nHost: localhost\r\nX-Slow: ' + 'a'.repeat(200);
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed && sent < header.length) socket.write(header[sent++] ?? '');
    }, 200);
    const opened = Date.now();
    try {
      assert.ok(await waitFor(() => socket.closed, 15_000), 'the server closed the slow connection');
      const lived = Date.now() - opened;
      assert.ok(lived >= 1_000, `closed after ${lived} ms`);
      assert.ok(sent < header.length, 'closed before the headers were complete');
    } finally {
      clearInterval(drip);
      socket.destroy();
      await own.close();
    }
  });

  it('when every held connection is serving a request, a new one is refused with 503 limit_exceeded', async () => {
    const own = await serveMcpHttp(rt, { port: 0, maxConnections: 2, keepAliveTimeoutMs: 60_000 });
    const clients: Client[] = [];
    const calls: Promise<unknown>[] = [];
    const stopCalls = new AbortController();
    try {
      for (const label of ['busy-1', 'busy-2']) {
        const client = new Client({ name: label, version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
        await client.connect(new StreamableHTTPClientTransport(new URL(own.url)));
        clients.push(client);
      }
      // Two calls in flight hold both connections (each client's fetch pool opens its own); they
      // run until cancelled, so a slow machine cannot end one before the check.
      for (const [i, client] of clients.entries()) {
        const call = client.callTool({ name: 'test_slow', arguments: { label: `hold-${i}`, ms: 60_000 } }, { signal: stopCalls.signal });
        call.catch(() => {});
        calls.push(call);
      }
      assert.ok(await waitFor(() => ledgerLines(ledger).includes('start hold-0') && ledgerLines(ledger).includes('start hold-1'), 30_000));
      const answer = await rawExchange(own.port, 'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');
      assert.match(answer, /^HTTP\/1\.1 503 /);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { data: { code: string; limit: string; max: number } } };
      assert.deepEqual(body.error.data, { code: 'limit_exceeded', limit: 'connections', max: 2 });
      assert.ok(!ledgerLines(ledger).includes('end hold-0') && !ledgerLines(ledger).includes('end hold-1'), 'both calls were still running');
    } finally {
      stopCalls.abort();
      await Promise.allSettled(calls);
      for (const c of clients) await c.close().catch(() => {});
      await own.close();
    }
  });

  it('a body over the cap is refused with 413 limit_exceeded (limit body_bytes), typed like the connection and session caps', async () => {
    const own = await serveMcpHttp(rt, { port: 0, maxRequestBodyBytes: 1_024 });
    try {
      const answer = await fetch(own.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { padding: 'x'.repeat(2_048) } }),
      });
      assert.equal(answer.status, 413);
      const body = (await answer.json()) as { error: { message: string; data: { code: string; limit: string; max: number } } };
      assert.deepEqual(body.error.data, { code: 'limit_exceeded', limit: 'body_bytes', max: 1_024 });
      assert.match(body.error.message, /request body over 1024 bytes/);
    } finally {
      await own.close();
    }
  });
});

/** Sends `request` on a fresh connection and collects everything until the server closes it. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within 10 s; got ${JSON.stringify(data)}`));
    }, 10_000);
    socket.on('data', (b: Buffer) => (data += b.toString()));
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
    socket.write(request);
  });
}
