// @modelcontextprotocol/server-everything (the MCP reference server that exercises every protocol
// feature) behind Toolgate, unchanged, under bubblewrap, its stdin teed to a log in its data dir
// (fixtures/stdin-tee.mjs) so that what reached the server process can be read back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';

const require = createRequire(import.meta.url);
const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
const TEE = join(import.meta.dirname, 'fixtures/stdin-tee.mjs');
const CANARY_VAR = 'TG_TEST_EVERYTHING_CANARY';

/** The JSON-RPC messages the server process received on its stdin. */
function received(data: string): Record<string, unknown>[] {
  const f = join(data, 'stdin.log');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const textOf = (r: Receipt): string => ((r.result as { content: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');

describe('@modelcontextprotocol/server-everything behind Toolgate', () => {
  const dirs = tempDirs('tg-everything');
  const data = join(dirs.base, 'data');
  mkdirSync(data);
  const canary = `canary-${randomBytes(12).toString('hex')}`;
  let rt: Runtime;

  before(async () => {
    // A secret in Toolgate's environment that no configuration passes on.
    process.env[CANARY_VAR] = canary;
    rt = await createRuntime({
      workspace: dirs.workspace,
      stateDir: dirs.state,
      grant: { tools: ['*'], effects: ['read'], read: ['**'], write: [] },
      upstreams: {
        everything: {
          command: process.execPath,
          args: [TEE, process.execPath, EVERYTHING, 'stdio'],
          data_dir: data,
          tools: {
            echo: { effect: 'read' },
            'get-sum': { effect: 'read' },
            'get-env': { effect: 'read' },
            'trigger-long-running-operation': { effect: 'read' },
          },
        },
      },
    });
  });
  after(async () => {
    await rt?.close();
    delete process.env[CANARY_VAR];
    dirs.cleanup();
  });

  it('lists its manifested tools under the namespace and refuses the rest; it offered no sampling, elicitation or roots tool, since Toolgate declared none of those capabilities', () => {
    const status = rt.gateway?.status()[0];
    assert.deepEqual(status?.tools, ['everything.echo', 'everything.get-env', 'everything.get-sum', 'everything.trigger-long-running-operation']);
    assert.ok((status?.refused.length ?? 0) >= 5, JSON.stringify(status?.refused));
    assert.ok(status?.refused.includes('get-tiny-image'));
    // The server registers these only for a client that declares sampling / elicitation / roots.
    const conditional = (status?.refused ?? []).filter((t) => /sampling|elicitation|roots/.test(t));
    assert.deepEqual(conditional, []);
    const init = received(data).find((m) => m['method'] === 'initialize') as { params: { capabilities: Record<string, unknown> } } | undefined;
    assert.ok(init, 'the server received initialize');
    assert.deepEqual(Object.keys(init.params.capabilities).filter((k) => ['sampling', 'elicitation', 'roots'].includes(k)), []);
  });

  it('a manifested read is callable through the pipeline; an unmanifested tool is unknown_tool', async () => {
    const echo = await rt.call(envelope('everything.echo', { message: 'through toolgate' }, { task_id: 'e1' }));
    assert.equal(echo.status, 'succeeded', JSON.stringify(echo.error));
    assert.match(textOf(echo), /Echo: through toolgate/);
    const sum = await rt.call(envelope('everything.get-sum', { a: 2, b: 40 }, { task_id: 'e1' }));
    assert.equal(sum.status, 'succeeded', JSON.stringify(sum.error));
    assert.match(textOf(sum), /42/);
    const tiny = await rt.call(envelope('everything.get-tiny-image', {}, { task_id: 'e1' }));
    assert.equal(tiny.error?.code, 'unknown_tool');
    assert.equal(received(data).filter((m) => (m['params'] as { name?: string } | undefined)?.name === 'get-tiny-image').length, 0, 'the refused call never reached the server');
  });

  it('its environment holds none of Toolgate\'s: get-env shows no planted secret', async () => {
    const env = await rt.call(envelope('everything.get-env', {}, { task_id: 'e2' }));
    assert.equal(env.status, 'succeeded', JSON.stringify(env.error));
    assert.ok(textOf(env).length > 0);
    assert.doesNotMatch(textOf(env), new RegExp(canary));
    assert.doesNotMatch(textOf(env), new RegExp(CANARY_VAR));
  });

  it('a cancelled long-running operation: the call ends cancelled and notifications/cancelled reaches the server process', async () => {
    const abort = new AbortController();
    const p = rt.call(envelope('everything.trigger-long-running-operation', { duration: 60, steps: 60 }, { task_id: 'e3' }), { signal: abort.signal });
    assert.ok(await waitFor(() => received(data).some((m) => m['method'] === 'tools/call' && (m['params'] as { name: string }).name === 'trigger-long-running-operation'), 30_000), 'the call reached the server');
    abort.abort();
    const r = await p;
    assert.equal(r.status, 'cancelled');
    const call = received(data).find((m) => m['method'] === 'tools/call' && (m['params'] as { name: string }).name === 'trigger-long-running-operation');
    assert.ok(
      await waitFor(() => received(data).some((m) => m['method'] === 'notifications/cancelled' && (m['params'] as { requestId: unknown }).requestId === call?.['id']), 20_000),
      'notifications/cancelled for that request id reached the server',
    );
  });
});
