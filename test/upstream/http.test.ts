// A Streamable HTTP upstream tested live: a real MCP server (fixtures/http-server.mjs, the SDK's
// McpServer behind createMcpHandler) in a child process on loopback, behind Toolgate as a `url`
// upstream whose credential header comes from Toolgate's environment. The credential reaches the
// server on every request and appears nowhere Toolgate records; a server that goes away mid-call
// is typed by the manifest's effect class.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';

const SERVER = join(import.meta.dirname, 'fixtures/http-server.mjs');
const TOKEN_VAR = 'TG_TEST_REMOTE_TOKEN';

/** Starts the server (on `port`, or a free one) and resolves with its port once it listens. */
async function startServer(data: string, port = 0): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [SERVER, data, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return { child, port: (JSON.parse(line) as { port: number }).port };
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Every file under `dir`, read as bytes: where a planted value could have been written. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

const lines = (f: string): Record<string, unknown>[] => (existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []);

describe('a Streamable HTTP upstream on loopback, live', () => {
  const token = `canary-${randomBytes(12).toString('hex')}`;
  const dirs = tempDirs('tg-http-upstream');
  const data = join(dirs.base, 'remote');
  mkdirSync(data);
  let server: { child: ChildProcess; port: number };
  let rt: Runtime;
  const call = (task: string, tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Receipt> =>
    rt.call(envelope(tool, args, { task_id: task, ...extra }));

  before(async () => {
    process.env[TOKEN_VAR] = token;
    server = await startServer(data);
    rt = await createRuntime({
      workspace: dirs.workspace,
      stateDir: dirs.state,
      grant: { tools: ['*'], effects: ['read', 'send'], read: ['**'], write: [] },
      upstreams: {
        remote: {
          url: `http://127.0.0.1:${server.port}/mcp`,
          headers: { Authorization: { from_env: TOKEN_VAR, prefix: 'Bearer ' } },
          call_timeout_ms: 60_000,
          tools: {
            lookup: { effect: 'read' },
            ask_model: { effect: 'read' },
            whoami: { effect: 'read' },
            slow_read: { effect: 'read' },
            find_note: { effect: 'read' },
            send_note: {
              effect: 'send',
              resources: [{ arg: 'to', type: 'channel', normalize: ['trim', 'lowercase'] }],
              idempotency_arg: 'key',
              reconcile: { tool: 'find_note', arguments: { key: '{idempotency_key}' }, found: { pointer: '/found', equals: true } },
            },
          },
        },
      },
    });
  });
  after(async () => {
    await rt?.close();
    if (server) await kill(server.child);
    delete process.env[TOKEN_VAR];
    dirs.cleanup();
  });

  it('lists the manifested tools (the unmanifested one refused) and calls one through the pipeline', async () => {
    const status = rt.gateway?.status()[0];
    assert.deepEqual(status?.tools, ['remote.ask_model', 'remote.find_note', 'remote.lookup', 'remote.send_note', 'remote.slow_read', 'remote.whoami']);
    assert.deepEqual(status?.refused, ['admin_reset']);
    assert.equal((await call('h1', 'remote.admin_reset', {})).error?.code, 'unknown_tool');
    const r = await call('h1', 'remote.lookup', { q: 'toolgate' });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.deepEqual((r.result as { structured: unknown }).structured, { answer: 'found toolgate' });
  });

  it('the configured credential reaches the server on every request; the model cannot set one; it is in no receipt, result or file of the state dir', async () => {
    const echoed = await call('h2', 'remote.whoami', {});
    assert.equal(echoed.status, 'succeeded', JSON.stringify(echoed.error));
    // The server echoed the header it got: Toolgate redacted the value it injected.
    assert.doesNotMatch(JSON.stringify(echoed), new RegExp(token));
    assert.match(JSON.stringify((echoed.result as { structured: unknown }).structured), /Bearer /);
    // A model that writes a credential into the arguments sends arguments, not headers.
    const forged = await call('h2', 'remote.lookup', { q: 'x', authorization: 'Bearer model-chosen' });
    assert.equal(forged.status, 'succeeded', JSON.stringify(forged.error));
    const requests = lines(join(data, 'requests.jsonl'));
    assert.ok(requests.length >= 4);
    const crossings = requests.filter((q) => q['authorization'] !== `Bearer ${token}` || q['cookie'] !== null || q['x-api-key'] !== null);
    assert.deepEqual(crossings, [], 'every request carried exactly the configured credential');
    for (const r of await rt.store.listReceipts({ task: 'h2' as never })) assert.doesNotMatch(JSON.stringify(r), new RegExp(token));
    const leaked = filesUnder(dirs.state).filter((f) => readFileSync(f).includes(token));
    assert.deepEqual(leaked, [], 'the token is in no file of the state dir');
  });

  it('a sampling or elicitation request the upstream sends during a call is refused by the gateway: nothing reaches the model or the person', async () => {
    const r = await call('h5', 'remote.ask_model', {});
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    // The requests went over the wire to the gateway's client, which has no handler for them and
    // declared none of these capabilities: each is answered "method not found" (-32601) at once,
    // and the runtime above it (and so the MCP client of the model) never sees one.
    const refusal = { refused: 'Method not found', code: -32601 };
    const expected = { sampling: refusal, elicitation: refusal, roots: refusal };
    assert.deepEqual(lines(join(data, 'asked.jsonl')), [expected]);
    assert.deepEqual((r.result as { structured: unknown }).structured, expected);
  });

  it('a client cancel of a call in flight reaches the upstream', async () => {
    const before = lines(join(data, 'cancelled.jsonl')).length;
    const abort = new AbortController();
    const p = rt.call(envelope('remote.slow_read', {}, { task_id: 'h3' }), { signal: abort.signal });
    assert.ok(await waitFor(() => lines(join(data, 'started.jsonl')).length >= 1, 20_000), 'the server started the call');
    abort.abort();
    assert.equal((await p).status, 'cancelled');
    assert.ok(await waitFor(() => lines(join(data, 'cancelled.jsonl')).length > before, 20_000), 'the server saw the cancellation');
  });

  it('a server that goes away mid-call: a read is upstream_unavailable, a send is ambiguous and reconciled once it is back', async () => {
    let started = lines(join(data, 'started.jsonl')).length;
    const read = call('h4', 'remote.slow_read', {});
    assert.ok(await waitFor(() => lines(join(data, 'started.jsonl')).length > started, 20_000));
    await kill(server.child);
    const lost = await read;
    assert.equal(lost.status, 'failed');
    assert.equal(lost.error?.code, 'upstream_unavailable', JSON.stringify(lost.error));
    assert.deepEqual(await rt.listUnsettled(), []);

    server = await startServer(data, server.port);
    const send = { to: ' #Ops ', text: 'deploy done', hold: true };
    const asked = await call('h4', 'remote.send_note', send, { idempotency_key: 'n-1' });
    assert.equal(asked.error?.code, 'approval_required');
    await rt.approvals.approve(asked.error?.data['approval_id'] as string, 'test-operator', Date.now());
    started = lines(join(data, 'started.jsonl')).length;
    const sending = call('h4', 'remote.send_note', send, { idempotency_key: 'n-1' });
    assert.ok(await waitFor(() => lines(join(data, 'started.jsonl')).length > started, 20_000), 'the note was sent (through a new session: the restarted server forgot the old one)');
    await kill(server.child);
    const unknown = await sending;
    assert.equal(unknown.status, 'ambiguous', JSON.stringify(unknown.error));
    assert.deepEqual(unknown.normalized_action?.resources[0], { kind: 'resource', system: 'remote', type: 'channel', id: '#ops', access: 'write' });

    // Back again: a retry of the same effect reconciles through find_note and does not send twice.
    server = await startServer(data, server.port);
    const retry = await call('h4', 'remote.send_note', send, { idempotency_key: 'n-1' });
    assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
    assert.equal(lines(join(data, 'effects.jsonl')).length, 1, 'one note: the retry found it through find_note and did not send it again');
    assert.equal(lines(join(data, 'started.jsonl')).length, started + 1);
  });
});
