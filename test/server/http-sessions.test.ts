// Issue 10 item 7: sessions are never evicted to admit new ones. Before the fix, 1,000
// `initialize` requests against `toolgate serve --http` closed 10 of 10 established sessions
// (least recently used closed beyond 64); now the excess is refused with 503 and a JSON-RPC error
// whose data.code is `limit_exceeded`, and idle sessions expire after the documented timeout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp } from '../../src/server/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { tempDirs } from '../support/fixtures.js';
import { ledgerLines } from '../support/probe-tools.js';
import { waitFor } from '../support/processes.js';
import { slowTool } from '../support/slow-tool.js';
import { legacyClient, startServe } from './http-child.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function initBody(id: number): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
}

interface LimitRefusal {
  readonly id: unknown;
  readonly error: { readonly code: number; readonly message: string; readonly data: { readonly code: string; readonly limit: string; readonly max: number } };
}

/** The typed refusal as an SDK client sees it: the HTTP status and the JSON-RPC body in the error. */
function refusalOf(error: unknown): { status: unknown; body: LimitRefusal } {
  const data = (error as { data?: { status?: unknown; text?: string } }).data;
  return { status: data?.status, body: JSON.parse(data?.text ?? 'null') as LimitRefusal };
}

/** Sends raw initializes until one is admitted (the refused ones are 503). */
async function pollUntilAdmitted(url: string, boundMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < boundMs) {
    const r = await fetch(url, { method: 'POST', headers: HEADERS, body: initBody(9) });
    await r.body?.cancel();
    if (r.status === 200) {
      // Leave no session behind: end the one just opened.
      const id = r.headers.get('mcp-session-id') ?? '';
      await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' } }).then((d) => d.body?.cancel());
      return;
    }
    assert.equal(r.status, 503);
    await new Promise((res) => setTimeout(res, 100));
  }
  return assert.fail(`no session admitted within ${boundMs} ms`);
}

async function fsRead(client: Client): Promise<string> {
  const r = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } });
  return String(r._meta?.['toolgate/status']);
}

describe('serve --http sessions: one client cannot evict the others', () => {
  it('an established session keeps working through 1,000 initialize attempts; the excess is refused with 503 limit_exceeded', { timeout: 180_000 }, async (t) => {
    const server = await startServe();
    const clients: Client[] = [];
    try {
      const keeper = new Client({ name: 'keeper', version: '1' });
      const keeperTransport = new StreamableHTTPClientTransport(new URL(server.url));
      await keeper.connect(keeperTransport);
      clients.push(keeper);
      assert.equal(await fsRead(keeper), 'succeeded');
      const statuses = new Map<number, number>();
      let keeperCalls = 0;
      for (let batch = 0; batch < 1_000 / 25; batch++) {
        await Promise.all(
          Array.from({ length: 25 }, async (_, i) => {
            const id = batch * 25 + i + 1;
            const r = await fetch(server.url, { method: 'POST', headers: HEADERS, body: initBody(id) });
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            if (r.status === 503) {
              const body = (await r.json()) as LimitRefusal;
              assert.equal(body.id, id);
              assert.equal(body.error.data.code, 'limit_exceeded');
              assert.deepEqual([body.error.data.limit, body.error.data.max], ['sessions', 64]);
              // Nothing is idle yet: the earliest expiry is the documented 30 min away.
              assert.ok(Number(r.headers.get('retry-after')) > 60, `retry-after ${r.headers.get('retry-after')}`);
            } else {
              await r.body?.cancel();
            }
          }),
        );
        // The established session is used between the waves of initializes, and answers every time.
        if (batch % 4 === 3) {
          assert.equal(await fsRead(keeper), 'succeeded', `after ${(batch + 1) * 25} initializes`);
          keeperCalls++;
        }
      }
      t.diagnostic(`initialize answers: ${JSON.stringify([...statuses])}; keeper calls ${keeperCalls}, all succeeded`);
      assert.deepEqual([...statuses].sort(), [
        [200, 63],
        [503, 937],
      ]);
      // An SDK client at the cap gets the typed refusal, not a hang and not someone else's slot.
      const late = new Client({ name: 'late', version: '1' });
      const refused = await late.connect(new StreamableHTTPClientTransport(new URL(server.url))).then(
        () => assert.fail('connected past the session limit'),
        (e: unknown) => e,
      );
      const { status, body } = refusalOf(refused);
      assert.equal(status, 503);
      assert.equal(body.error.data.code, 'limit_exceeded');
      assert.match(body.error.message, /session limit reached: 64 sessions/);
      // The keeper ends its session (DELETE): that slot is free for the next client.
      await keeperTransport.terminateSession();
      await keeper.close();
      clients.length = 0;
      const next = await legacyClient(server.url);
      clients.push(next);
      assert.equal(await fsRead(next), 'succeeded');
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      assert.equal(await server.stop(), 0, server.stderr());
    }
  });

  describe('in process, with small limits', () => {
    const dirs = tempDirs('tg-http-sessions');
    const ledger = join(dirs.base, 'ledger');
    let rt: Runtime;

    before(async () => {
      writeFileSync(join(dirs.workspace, 'a.txt'), 'hello\n');
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

    it('a session unused past sessionIdleMs expires and frees its slot; the expired one answers 404', async () => {
      const own = await serveMcpHttp(rt, { port: 0, maxSessions: 1, sessionIdleMs: 3_000 });
      try {
        // Raw initialize: a session with no stream left open, so nothing keeps it in use.
        const opened = Date.now();
        const first = await fetch(own.url, { method: 'POST', headers: HEADERS, body: initBody(1) });
        const firstId = first.headers.get('mcp-session-id') ?? assert.fail('no session id');
        await first.body?.cancel();
        const refused = await fetch(own.url, { method: 'POST', headers: HEADERS, body: initBody(2) });
        assert.equal(refused.status, 503);
        assert.equal(((await refused.json()) as LimitRefusal).error.data.code, 'limit_exceeded');
        // Admitted once the first has been idle 3 s (each refusal first expires the idle sessions).
        await pollUntilAdmitted(own.url, 20_000);
        assert.ok(Date.now() - opened >= 3_000, `admitted ${Date.now() - opened} ms after the first session opened`);
        const client = await legacyClient(own.url);
        try {
          assert.equal(await fsRead(client), 'succeeded');
        } finally {
          await client.close();
        }
        const gone = await fetch(own.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': firstId, 'mcp-protocol-version': '2025-11-25' }, body: initBody(3) });
        assert.equal(gone.status, 404);
        await gone.body?.cancel();
      } finally {
        await own.close();
      }
    });

    it('a session with a call in flight is in use: it does not expire however long the call runs', async () => {
      const own = await serveMcpHttp(rt, { port: 0, maxSessions: 1, sessionIdleMs: 200 });
      const busy = await legacyClient(own.url);
      try {
        const call = busy.callTool({ name: 'test_slow', arguments: { label: 'in-use', ms: 8_000 } });
        call.catch(() => {}); // awaited below; an early assertion must not leave it unhandled
        assert.ok(await waitFor(() => ledgerLines(ledger).includes('start in-use'), 30_000), 'tool started');
        // Five idle timeouts into the call: a newcomer is refused, the busy session stays.
        await new Promise((r) => setTimeout(r, 1_000));
        assert.ok(!ledgerLines(ledger).includes('end in-use'), 'the call is still running');
        const refused = await fetch(own.url, { method: 'POST', headers: HEADERS, body: initBody(1) });
        assert.equal(refused.status, 503);
        await refused.body?.cancel();
        const r = await call;
        assert.equal(r._meta?.['toolgate/status'], 'succeeded');
        assert.equal(await fsRead(busy), 'succeeded');
      } finally {
        await busy.close().catch(() => {});
        await own.close();
      }
    });
  });
});
