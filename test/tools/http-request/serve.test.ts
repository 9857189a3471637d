// http.request through the built `toolgate serve --stdio` over MCP: the configuration file
// declares the destination and names the secret's environment variable; a real provider on
// 127.0.0.2 takes a GET and a POST whose connection it drops, and reconcile (the CLI) settles it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { filesUnder, tempDirs } from '../../support/fixtures.js';
import { alive, waitFor } from '../../support/processes.js';
import { Provider } from './provider.js';
import { connectorConfig, grantFor, HOST_POLICY, PROVIDER_ADDRESS, SECRET, SECRET_ENV } from './harness.js';

const BIN = join(import.meta.dirname, '../../../dist/src/cli/main.js');

describe('http.request through toolgate serve (MCP, stdio)', () => {
  let provider: Provider;
  const d = tempDirs('tg-http-serve');
  const config = join(d.base, 'toolgate.config.json');

  before(async () => {
    provider = await Provider.start(PROVIDER_ADDRESS);
    writeFileSync(join(d.base, 'grant.json'), JSON.stringify(grantFor()));
    writeFileSync(join(d.base, 'http.cedar'), HOST_POLICY);
    writeFileSync(config, JSON.stringify({ workspace: 'ws', state_dir: 'state', grant: 'grant.json', policies: ['http.cedar'], connectors: { http: connectorConfig() } }));
  });
  after(async () => {
    await provider.close();
    d.cleanup();
  });

  it('GET, a POST whose answer is lost (ambiguous, not re-sent), `toolgate reconcile` finds it: one effect; the secret nowhere in the state dir', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--stdio', '--config', config, '--task', 'serve-http'],
      env: { ...(process.env as Record<string, string>), [SECRET_ENV]: SECRET },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'http-serve-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid ?? assert.fail('no pid');
    const url = `http://${PROVIDER_ADDRESS}:${provider.port}`;
    try {
      const listed = await client.listTools();
      assert.ok(listed.tools.some((t) => t.name === 'http_request'));
      const get = await client.callTool({ name: 'http_request', arguments: { method: 'GET', url: `${url}/hello` } });
      assert.notEqual(get.isError, true, JSON.stringify(get));
      assert.equal((get.structuredContent as { body: string }).body, 'hello /hello\n');

      provider.behaviour = 'drop';
      const args = { method: 'POST', url: `${url}/items`, body: 'via-mcp' };
      const lost = await client.callTool({ name: 'http_request', arguments: args, _meta: { 'toolgate/idempotency_key': 'mcp-1' } } as never);
      assert.equal(lost.isError, true);
      assert.match(JSON.stringify(lost), /ambiguous/);
      assert.equal(provider.writes, 1);
    } finally {
      provider.behaviour = 'answer';
      await client.close();
    }
    assert.ok(await waitFor(() => !alive(pid), 10_000), 'server exited');

    // Asynchronously: the provider answering the reconcile query lives in this process.
    const rec = await promisify(execFile)(process.execPath, [BIN, 'reconcile', '--config', config, '--json'], { encoding: 'utf8', env: { ...process.env, [SECRET_ENV]: SECRET }, timeout: 60_000 });
    assert.match(rec.stdout, /"settled":\s*"completed"/);
    assert.equal(provider.writes, 1, 'reconcile sent no second POST');
    assert.equal(provider.effects.size, 1);

    for (const f of filesUnder(join(d.base, 'state'))) assert.equal(readFileSync(f).includes(SECRET), false, `${f} holds the secret`);
  });
});
