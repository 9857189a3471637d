// The built `toolgate serve`, driven by the MCP SDK's client: its spans reach a real OTLP/HTTP
// receiver (configured in toolgate.config.json for stdio, by OTEL_EXPORTER_OTLP_ENDPOINT for
// HTTP) and are flushed when serve ends; its /metrics endpoint (--metrics-port for stdio, the
// HTTP port itself for --http, behind the bearer token) shows what the calls did.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';
import { alive, waitFor } from '../support/processes.js';
import { Provider } from '../tools/http-request/provider.js';
import { connectorConfig, grantFor, HOST_POLICY, PROVIDER_ADDRESS, SECRET, SECRET_ENV } from '../tools/http-request/harness.js';
import { OtlpReceiver } from './otlp-receiver.js';
import { scrape, valueOf } from './scrape.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const OTLP_KEY_ENV = 'TG_TEST_OTLP_KEY';
const OTLP_KEY = 'otlp-key-7d1e0c';

/**
 * Process env without any OTEL_* of the machine running the tests, and a batch delay of ten
 * minutes: every span that arrives was flushed by serve's shutdown.
 */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('OTEL_')) env[k] = v;
  return { ...env, OTEL_BSP_SCHEDULE_DELAY: '600000', ...extra };
}

describe('toolgate serve: OTLP spans and /metrics', () => {
  let receiver: OtlpReceiver;
  let provider: Provider;
  const d = tempDirs('tg-telemetry-serve');
  before(async () => {
    receiver = await OtlpReceiver.start();
    provider = await Provider.start(PROVIDER_ADDRESS);
    writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
    writeFileSync(join(d.workspace, '.env'), 'X=1\n');
    writeFileSync(join(d.base, 'grant.json'), JSON.stringify({ ...grantFor(), effects: ['read', 'network', 'send'], read: ['**'], write: [] }));
    writeFileSync(join(d.base, 'http.cedar'), `${HOST_POLICY}\npermit (principal, action, resource is Toolgate::Path);`);
    writeFileSync(join(d.base, 'token'), 'tok-metrics\n');
    mkdirSync(join(d.base, 'state'));
  });
  after(async () => {
    await receiver.close();
    await provider.close();
    d.cleanup();
  });

  it('stdio: spans for each call arrive over OTLP (with the configured header) when the client closes; --metrics-port serves the counters', async () => {
    const config = join(d.base, 'stdio.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        workspace: 'ws',
        state_dir: 'state',
        grant: 'grant.json',
        policies: ['http.cedar'],
        telemetry: { otlp: { endpoint: receiver.endpoint, headers_from_env: [{ header: 'x-otlp-key', env: OTLP_KEY_ENV }], service_name: 'toolgate-test' } },
      }),
    );
    const before = receiver.spans.length;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--stdio', '--config', config, '--task', 'task-stdio-otlp', '--metrics-port', '0'],
      env: cleanEnv({ [OTLP_KEY_ENV]: OTLP_KEY }),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    const client = new Client({ name: 'telemetry-stdio-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid ?? assert.fail('no pid');
    try {
      const ok = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } });
      assert.notEqual(ok.isError, true, JSON.stringify(ok));
      const denied = await client.callTool({ name: 'fs_read', arguments: { path: '.env' } });
      assert.equal(denied.isError, true);
      assert.ok(await waitFor(() => /metrics on (\S+)/.test(stderr), 20_000), stderr);
      const url = /metrics on (\S+)/.exec(stderr)?.[1] ?? assert.fail(stderr);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const s = await scrape(url);
      assert.equal(valueOf(s, 'toolgate_calls_total', { tool: 'fs.read', status: 'succeeded' }), 1);
      assert.equal(valueOf(s, 'toolgate_denials_total', { tool: 'fs.read', code: 'secret_path' }), 1);
      assert.equal(receiver.spans.length, before, 'nothing is exported before serve ends (the batch is not due)');
    } finally {
      await client.close();
    }
    assert.ok(await waitFor(() => !alive(pid), 20_000), 'server exited');
    const calls = receiver.calls().filter((c) => c.root.attributes['toolgate.task.id'] === 'task-stdio-otlp');
    assert.deepEqual(calls.map((c) => [c.root.name, c.root.attributes['toolgate.status']]).sort(), [
      ['execute_tool fs.read', 'denied'],
      ['execute_tool fs.read', 'succeeded'],
    ]);
    for (const c of calls) {
      assert.equal(c.root.resource['service.name'], 'toolgate-test');
      assert.ok(c.stages.length >= 5, 'the stages are children of the call');
      assert.ok(c.stages.every((s) => s.traceId === c.root.traceId));
    }
    assert.ok(receiver.headers.some((h) => h['x-otlp-key'] === OTLP_KEY), 'the header from the environment was sent');
  });

  it('HTTP: OTEL_EXPORTER_OTLP_ENDPOINT, /metrics on the MCP port behind the token, an ambiguous POST counted by destination; SIGTERM flushes the spans', async () => {
    const config = join(d.base, 'http.config.json');
    writeFileSync(
      config,
      JSON.stringify({ workspace: 'ws', state_dir: 'state', grant: 'grant.json', policies: ['http.cedar'], connectors: { http: connectorConfig() }, limits: { default_deadline_ms: 4_000 } }),
    );
    const before = receiver.spans.length;
    const child = spawn(process.execPath, [BIN, 'serve', '--http', '0', '--config', config, '--token-file', join(d.base, 'token'), '--task', 'task-http-otlp'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: cleanEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, [SECRET_ENV]: SECRET }),
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const kill = setTimeout(() => child.kill('SIGKILL'), 120_000);
    try {
      assert.ok(await waitFor(() => /serving MCP on (\S+)/.test(stderr) || child.exitCode !== null, 30_000), stderr);
      const mcpUrl = /serving MCP on (\S+)/.exec(stderr)?.[1] ?? assert.fail(stderr);
      const metricsUrl = new URL('/metrics', mcpUrl).href;
      const auth = { authorization: 'Bearer tok-metrics' };
      assert.equal((await fetch(metricsUrl)).status, 401, 'the token guards /metrics as it guards /mcp');
      const client = new Client({ name: 'telemetry-http-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: auth } }));
      const target = `http://${PROVIDER_ADDRESS}:${provider.port}`;
      try {
        const get = await client.callTool({ name: 'http_request', arguments: { method: 'GET', url: `${target}/hello` } });
        assert.notEqual(get.isError, true, JSON.stringify(get));
        provider.behaviour = 'hold';
        const held = await client.callTool({ name: 'http_request', arguments: { method: 'POST', url: `${target}/items`, body: 'x' }, _meta: { 'toolgate/idempotency_key': 'tel-1' } } as never);
        assert.equal(held.isError, true);
        assert.match(JSON.stringify(held), /ambiguous/);
      } finally {
        provider.behaviour = 'answer';
        await client.close();
      }
      const s = await scrape(metricsUrl, auth);
      const destination = `${PROVIDER_ADDRESS}:${provider.port}`;
      assert.equal(valueOf(s, 'toolgate_connector_effects_total', { tool: 'http.request', destination, effect_class: 'send', status: 'ambiguous' }), 1);
      assert.equal(valueOf(s, 'toolgate_ambiguous_effects_total', { tool: 'http.request' }), 1);
      assert.equal(valueOf(s, 'toolgate_timeouts_total', { tool: 'http.request', kind: 'deadline' }), 1);
      assert.equal(valueOf(s, 'toolgate_ambiguous_effects'), 1);
      assert.equal(valueOf(s, 'toolgate_calls_total', { tool: 'http.request', status: 'succeeded' }), 1);
      assert.equal(receiver.spans.length, before, 'nothing is exported before serve ends (the batch is not due)');
      child.kill('SIGTERM');
      assert.equal(await exited, 0, stderr);
    } finally {
      clearTimeout(kill);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    // A 2025-era HTTP session is its own task: the spans of this run are those received since it started.
    const fresh = new Set(receiver.spans.slice(before));
    const calls = receiver.calls().filter((c) => fresh.has(c.root));
    const post = calls.find((c) => c.root.attributes['toolgate.status'] === 'ambiguous') ?? assert.fail('no span of the ambiguous call');
    assert.equal(post.root.name, 'execute_tool http.request');
    assert.equal(post.root.attributes['toolgate.effect_class'], 'send');
    assert.equal(post.root.attributes['error.type'], 'ambiguous_effect');
    assert.equal(post.root.attributes['toolgate.idempotency_key'], 'tel-1');
    assert.equal(post.stages.find((s) => s.status.code === 2)?.name, 'toolgate.execute');
    assert.equal(calls.length, 2);
    assert.equal(receiver.bodies.some((b) => b.includes(SECRET)), false, 'the connector secret is in no span');
  });
});
