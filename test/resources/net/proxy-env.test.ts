// Proxy environment variables are ignored by construction: the pinned options carry their own
// Agent and lookup, and node:http reads no proxy variable for an Agent it did not create from the
// environment. A child process is started with every variable (both cases, ALL_PROXY, an empty
// NO_PROXY, NODE_USE_ENV_PROXY=1) pointing at a recording "proxy" on 127.0.0.4: it must see nothing.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { answersFrom, TestDnsServer } from '../../support/dns-server.js';
import { RecordingServer } from './fixtures.js';

const child = fileURLToPath(new URL('./proxy-env-child.ts', import.meta.url));

describe('proxy environment variables are ignored', () => {
  let target: RecordingServer;
  let proxy: RecordingServer;
  let dns: TestDnsServer;
  before(async () => {
    target = await RecordingServer.start('127.0.0.2');
    proxy = await RecordingServer.start('127.0.0.4', 0, (_req, res) => {
      res.writeHead(502);
      res.end('via proxy');
    });
    dns = await TestDnsServer.start(answersFrom({ 'proxied.test': { A: ['127.0.0.2'] } }));
  });
  after(async () => {
    await Promise.all([target.close(), proxy.close(), dns.close()]);
  });

  it('a pinned request goes straight to the authorized address with HTTP(S)_PROXY, ALL_PROXY and NO_PROXY set', async () => {
    const p = `http://127.0.0.4:${proxy.port}`;
    const env = {
      ...process.env,
      HTTP_PROXY: p,
      HTTPS_PROXY: p,
      ALL_PROXY: p,
      http_proxy: p,
      https_proxy: p,
      all_proxy: p,
      NO_PROXY: '',
      no_proxy: '',
      NODE_USE_ENV_PROXY: '1',
    };
    for (const url of [`http://proxied.test:${target.port}/by-name`, `http://127.0.0.2:${target.port}/by-address`]) {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child, url, dns.server], { env, timeout: 60_000 });
      assert.deepEqual(JSON.parse(stdout), { status: 200, body: 'served by 127.0.0.2', proxy: p });
    }
    assert.deepEqual(
      target.requests.map((r) => r.url),
      ['/by-name', '/by-address'],
    );
    assert.equal(proxy.connections, 0, 'the proxy saw no connection');
  });
});
