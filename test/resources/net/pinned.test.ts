// The connection goes to the address that was authorized and to no other: the pinned lookup never
// asks DNS again, so a name that answers differently the second time (DNS rebinding) cannot move
// it. Real HTTP servers listen on 127.0.0.2 and 127.0.0.3 (same port); the test DNS server
// answers the first lookup with 127.0.0.2 (granted) and every later one with 127.0.0.3.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import https from 'node:https';
import { after, before, describe, it } from 'node:test';
import {
  authorizeDestination,
  connectPinned,
  destinationEvidence,
  dnsServerResolver,
  GIT_SCHEMES,
  pinnedLookup,
  pinnedRequestOptions,
  WEB_SCHEMES,
  type HostResolver,
} from '../../../src/resources/index.js';
import { answersFrom, TestDnsServer } from '../../support/dns-server.js';
import { assertRefused, get, grantOf, serverPair, type RecordingServer } from './fixtures.js';

describe('the connection is pinned to the authorized address', () => {
  let dns: TestDnsServer;
  let resolver: HostResolver;
  let granted: RecordingServer;
  let rebound: RecordingServer;
  before(async () => {
    [granted, rebound] = await serverPair('127.0.0.2', '127.0.0.3');
    dns = await TestDnsServer.start((q) => {
      if (q.name === 'rebind.test' && q.type === 'A') return q.nth === 0 ? ['127.0.0.2'] : ['127.0.0.3'];
      if (q.name === 'rebind.test' || q.name === 'tls.test') return [];
      return 'nxdomain';
    });
    resolver = dnsServerResolver({ servers: [dns.server] });
  });
  after(async () => {
    await Promise.all([granted.close(), rebound.close(), dns.close()]);
  });

  it('DNS rebinding fails: the request reaches the first, authorized answer; the second answer gets nothing', async () => {
    const grant = grantOf({ hosts: ['rebind.test'], private_addresses: ['127.0.0.2'] });
    const dest = await authorizeDestination(`http://rebind.test:${granted.port}/effect`, { schemes: WEB_SCHEMES, grant, resolver });
    assert.equal(dest.connectTo.address, '127.0.0.2');
    const asked = dns.queriesFor('rebind.test');

    // The name now answers 127.0.0.3: a connector that looked it up again would go there.
    assert.deepEqual(await resolver.resolve('rebind.test'), [{ address: '127.0.0.3', family: 4 }]);
    const afterRebind = dns.queriesFor('rebind.test');

    for (let i = 0; i < 3; i++) {
      const res = await get(pinnedRequestOptions(dest));
      assert.equal(res.status, 200);
      assert.equal(res.body, 'served by 127.0.0.2');
    }
    assert.equal(granted.requests.length, 3);
    assert.deepEqual(granted.requests[0], { method: 'GET', url: '/effect', host: `rebind.test:${granted.port}` });
    assert.equal(rebound.connections, 0, 'nothing reached the rebound address');
    assert.equal(dns.queriesFor('rebind.test'), afterRebind, 'the pinned requests asked DNS nothing');
    assert.ok(asked >= 1);

    // Control: a connector that resolves again (the attack this prevents) does reach 127.0.0.3, so
    // the harness would have seen a pinning failure.
    const naive = await get({
      host: 'rebind.test',
      port: granted.port,
      path: '/naive',
      lookup: (hostname, _options, callback) => {
        resolver.resolve(hostname).then(
          (answers) => callback(null, answers.map((a) => ({ address: a.address, family: a.family }))),
          (e: Error) => callback(e, []),
        );
      },
    });
    assert.equal(naive.body, 'served by 127.0.0.3');
    assert.equal(rebound.requests.length, 1);

    // Authorizing again is a new decision on the new answer: refused.
    await assertRefused(authorizeDestination(`http://rebind.test:${granted.port}/`, { schemes: WEB_SCHEMES, grant, resolver }), { address: '127.0.0.3', class: 'loopback' });
  });

  it('the pinned lookup answers only its own host, in both callback forms, without a lookup', async () => {
    const grant = grantOf({ hosts: ['rebind.test'], private_addresses: ['127.0.0.0/8'] });
    const dest = await authorizeDestination('http://rebind.test/', { schemes: WEB_SCHEMES, grant, resolver });
    const lookup = pinnedLookup(dest);
    const asked = dns.queries.length;
    const all = await new Promise((resolve, reject) => lookup('rebind.test', { all: true }, (e, a) => (e ? reject(e) : resolve(a))));
    assert.deepEqual(all, [{ address: dest.connectTo.address, family: 4 }]);
    const one = await new Promise((resolve, reject) => lookup('REBIND.test.', {}, (e, a, f) => (e ? reject(e) : resolve([a, f]))));
    assert.deepEqual(one, [dest.connectTo.address, 4]);
    await assert.rejects(new Promise((resolve, reject) => lookup('other.test', {}, (e, a) => (e ? reject(e) : resolve(a)))), { code: 'ENOTFOUND' });
    assert.equal(dns.queries.length, asked);
  });

  it('a raw TCP connection (git://, a CONNECT tunnel) goes to the pinned address', async () => {
    const seen: string[] = [];
    const tcp = createTcpServer((s) => {
      seen.push(s.localAddress ?? '');
      s.end('ok');
    });
    tcp.listen(0, '127.0.0.2');
    await once(tcp, 'listening');
    try {
      const port = (tcp.address() as AddressInfo).port;
      const dest = await authorizeDestination(`git://127.0.0.2:${port}/repo`, { schemes: GIT_SCHEMES, grant: grantOf({ hosts: ['*'], private_addresses: ['127.0.0.2'] }), resolver });
      const socket = connectPinned(dest);
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      await once(socket, 'close');
      assert.equal(Buffer.concat(chunks).toString(), 'ok');
      assert.deepEqual(seen, ['127.0.0.2']);
    } finally {
      await new Promise((resolve) => tcp.close(resolve));
    }
  });

  it('TLS sends the normalized host name as SNI (never the address) to the pinned address', async () => {
    // No certificate is needed to see the ClientHello: the server records the SNI and ends the handshake.
    const names: string[] = [];
    const tls = createTlsServer({
      SNICallback: (servername, cb) => {
        names.push(servername);
        cb(new Error('test server has no certificate'));
      },
    });
    tls.on('tlsClientError', () => undefined);
    tls.listen(0, '127.0.0.2');
    await once(tls, 'listening');
    try {
      const port = (tls.address() as AddressInfo).port;
      const dns2 = await TestDnsServer.start(answersFrom({ 'tls.test': { A: ['127.0.0.2'] } }));
      try {
        const dest = await authorizeDestination(`https://TLS.test.:${port}/`, {
          schemes: WEB_SCHEMES,
          grant: grantOf({ hosts: ['tls.test'], private_addresses: ['127.0.0.2'] }),
          resolver: dnsServerResolver({ servers: [dns2.server] }),
        });
        assert.equal(dest.servername, 'tls.test');
        await assert.rejects(
          new Promise((resolve, reject) => {
            const req = https.request({ ...pinnedRequestOptions(dest), timeout: 10_000 }, resolve);
            req.on('timeout', () => req.destroy(new Error('timed out')));
            req.on('error', reject);
            req.end();
          }),
        );
        assert.deepEqual(names, ['tls.test']);
        assert.deepEqual(destinationEvidence(dest), {
          url: `https://tls.test:${port}/`,
          address: '127.0.0.2',
          port,
          servername: 'tls.test',
          addresses: [{ address: '127.0.0.2', class: 'loopback' }],
        });
      } finally {
        await dns2.close();
      }
    } finally {
      await new Promise((resolve) => tls.close(resolve));
    }
  });
});
