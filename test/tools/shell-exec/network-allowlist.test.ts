// shell.exec with network: allowlist, against a real server in a network namespace the test
// creates: real bubblewrap, the real proxy, curl inside the sandbox. Each attack is counted at the
// server (and at the DNS server): a refusal means 0 connections reached it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NetworkReport } from '../../../src/sandbox/index.js';
import { eventually, netRig, proxyDirs, resultOf, type NetRig } from './network-rig.js';

const curl = (args: string) => `curl -sS --max-time 20 ${args}`;

describe('shell.exec network allowlist', () => {
  let r: NetRig;
  let url: (host: string, path?: string) => string;

  before(async () => {
    r = await netRig();
    url = (host, path = '/') => `http://${host}:${r.server.port}${path}`;
  });
  after(async () => {
    await r?.done();
  });

  it('curl through the proxy reaches a granted host, plain HTTP and a CONNECT tunnel; both in the receipt', async () => {
    const before = (await r.server.stats()).connections;
    const receipt = await r.exec(`${curl(url('registry.test', '/plain'))} && ${curl(`-p ${url('registry.test', '/tunnel')}`)}`);
    assert.equal(receipt.status, 'succeeded', JSON.stringify(receipt.error ?? resultOf(receipt).stderr));
    const res = resultOf(receipt);
    assert.match(res.stdout.preview, new RegExp(`hello /plain from ${r.ns.nsAddress}\\nhello /tunnel from ${r.ns.nsAddress}`));
    assert.equal(res.isolation.network, 'allowlist');
    assert.equal(receipt.normalized_action?.effect_class, 'network');
    assert.ok(receipt.normalized_action?.resources.some((x) => x.kind === 'host' && x.host === 'registry.test'));
    const net = res.network as NetworkReport;
    assert.deepEqual(
      net.connections.map((c) => [c.kind, c.host, c.port, c.address, c.decision]),
      [
        ['http', 'registry.test', r.server.port, r.ns.nsAddress, 'allowed'],
        ['connect', 'registry.test', r.server.port, r.ns.nsAddress, 'allowed'],
      ],
    );
    for (const c of net.connections) assert.ok(c.bytes_up > 0 && c.bytes_down > 0, JSON.stringify(c));
    assert.equal(net.allowed, 2);
    assert.deepEqual((receipt.evidence as { connections: unknown }).connections, { allowed: 2, refused: 0, failed: 0, bytes_up: net.bytes_up, bytes_down: net.bytes_down });
    assert.equal((await r.server.stats()).connections, before + 2);
  });

  it('refuses with 403 and a reason, and records: a host outside the grant, metadata (address, alias, name), a private address not granted, a name resolving to one', async () => {
    const before = await r.server.stats();
    const dnsBefore = r.dns.queriesFor('outside.test') + r.dns.queriesFor('metadata.google.internal');
    const attempts: [string, string, string][] = [
      ['outside', curl(`-i ${url('outside.test')}`), 'host_not_granted'],
      ['outside, tunnel', curl(`-i -p ${url('outside.test')}`), 'host_not_granted'],
      ['the namespace address itself (not in hosts)', curl(`-i ${url(r.ns.nsAddress)}`), 'host_not_granted'],
      ['metadata address', curl(`-i http://169.254.169.254/latest/meta-data/`), 'address_class'],
      ['metadata hex alias', curl(`-i -p http://0xa9fea9fe/`), 'address_class'],
      ['metadata name (under a *.internal glob)', curl(`-i http://metadata.google.internal/`), 'metadata_name'],
      ['a name resolving to the metadata address', curl(`-i ${url('meta.test')}`), 'address_class'],
      ['a name with one granted and one private address', curl(`-i -p ${url('private.test')}`), 'address_class'],
      ['an AAAA mapping to loopback', curl(`-i ${url('mapped.test')}`), 'address_class'],
    ];
    const script = attempts.map(([, cmd]) => `${cmd}; echo "<<exit $?>>"`).join('\n');
    const receipt = await r.exec(script);
    assert.equal(receipt.status, 'succeeded', JSON.stringify(receipt.error));
    const res = resultOf(receipt);
    const statuses = res.stdout.preview.match(/^HTTP\/1\.1 \d+/gm) ?? [];
    assert.equal(statuses.length, attempts.length, res.stdout.preview);
    // curl shows a refused CONNECT as its own error (exit 56), a refused plain request as the 403 page.
    assert.ok(statuses.every((s) => s === 'HTTP/1.1 403'), res.stdout.preview);
    const net = res.network as NetworkReport;
    assert.deepEqual(
      net.connections.map((c) => [c.decision, c.reason]),
      attempts.map(([, , reason]) => ['refused', reason]),
    );
    assert.equal(net.connections[4]?.host, '169.254.169.254', 'the alias is recorded as normalized');
    assert.ok(net.connections.every((c) => c.address === null && c.bytes_up === 0));
    assert.equal(net.refused, attempts.length);
    assert.equal((await r.server.stats()).connections, before.connections, 'the server saw no connection');
    assert.equal(r.dns.queriesFor('outside.test') + r.dns.queriesFor('metadata.google.internal'), dnsBefore, 'names outside the grant are never looked up');
  });

  it('nothing but the proxy has a route: a raw TCP connect, curl without the proxy variables, DNS from inside', async () => {
    const before = await r.server.stats();
    const probes = r.dns.queriesFor('probe.test');
    const js = (code: string) => `node -e ${JSON.stringify(code)}`;
    const script = [
      // Raw TCP to the server's address and to the host's end of the pair.
      js(`for (const h of ['${r.ns.nsAddress}', '${r.ns.hostAddress}']) require('net').connect(${r.server.port}, h).on('connect', () => console.log('CONNECTED ' + h)).on('error', (e) => console.log('tcp ' + h + ' ' + e.code))`),
      // The proxy variables unset and bypassed.
      `env -u HTTP_PROXY -u http_proxy -u HTTPS_PROXY -u https_proxy -u ALL_PROXY -u all_proxy curl -sS --max-time 5 ${url(r.ns.nsAddress, '/bypass')}; echo "bypass-ip exit $?"`,
      `curl -sS --max-time 5 --noproxy '*' ${url('registry.test', '/bypass')}; echo "bypass-name exit $?"`,
      // DNS: the system resolver, and the test's DNS server asked directly.
      `getent hosts registry.test; echo "getent exit $?"`,
      js(`const r = new (require('dns').promises.Resolver)({ timeout: 1000, tries: 1 }); r.setServers(['${r.dns.server}']); r.resolve4('probe.test').then((a) => console.log('RESOLVED ' + a), (e) => console.log('dns ' + e.code))`),
      js(`require('dgram').createSocket('udp4').send(Buffer.from('x'), ${r.dns.server.split(':')[1]}, '${r.ns.hostAddress}', (e) => { console.log('udp ' + (e ? e.code : 'sent')); process.exit(0) })`),
    ].join('\n');
    const receipt = await r.exec(script);
    const out = resultOf(receipt).stdout.preview;
    assert.doesNotMatch(out, /CONNECTED|RESOLVED|hello/, out);
    assert.match(out, new RegExp(`tcp ${r.ns.nsAddress.replace(/\./g, '\\.')} ENETUNREACH`));
    assert.match(out, new RegExp(`tcp ${r.ns.hostAddress.replace(/\./g, '\\.')} ENETUNREACH`));
    assert.match(out, /bypass-ip exit 7/, 'curl: could not connect');
    assert.match(out, /bypass-name exit 6/, 'curl: could not resolve');
    assert.match(out, /getent exit 2/);
    assert.match(out, /dns (ECONNREFUSED|ETIMEOUT|ENETUNREACH)/);
    assert.match(out, /udp ENETUNREACH/);
    assert.deepEqual(resultOf(receipt).network?.connections, [], 'nothing went through the proxy either');
    assert.equal((await r.server.stats()).connections, before.connections, 'the server saw no connection');
    assert.equal(r.dns.queriesFor('probe.test'), probes, 'the DNS server saw no query');
  });

  it('the bridge is transparent: stdin, the exit status, a signal, and the TERM of a timeout reach the command', async () => {
    const piped = await r.exec('cat; exit 7', { stdin: { text: 'through the bridge\n' } });
    assert.equal(resultOf(piped).exit_code, 7);
    assert.equal(resultOf(piped).stdout.preview, 'through the bridge\n');
    const killed = await r.exec('kill -KILL $$');
    assert.equal(resultOf(killed).reason, 'signaled');
    assert.equal(resultOf(killed).signal, 'SIGKILL');
    const timed = await r.exec("trap 'echo got-term; exit 3' TERM; sleep 60 & wait", { timeout_ms: 1500 });
    assert.equal(resultOf(timed).reason, 'timeout');
    assert.match(resultOf(timed).stdout.preview, /got-term/, 'the command handled TERM itself within the grace period');
  });

  it("the proxy's sockets are gone when the call ends, and when it is cancelled mid-transfer", async () => {
    const ended = await r.exec(curl(`-p ${url('registry.test', '/done')}`));
    assert.equal(ended.status, 'succeeded');
    await eventually(async () => (await r.server.stats()).open === 0, 10_000, 'the server to see every connection closed');
    assert.equal(proxyDirs().length, 0, 'the socket directory is removed');

    const ac = new AbortController();
    const pending = r.exec(`${curl(`-p ${url('registry.test', '/hang')}`)}; ${curl(url('registry.test', '/hang'))}`, {}, ac.signal);
    const held0 = (await r.server.stats()).requests.filter((q) => q === 'GET /hang').length;
    await eventually(async () => (await r.server.stats()).requests.filter((q) => q === 'GET /hang').length > held0, 30_000, 'the held request to reach the server');
    ac.abort();
    const cancelled = await pending;
    assert.equal(cancelled.status, 'cancelled');
    const held = resultOf(cancelled).network?.connections ?? [];
    assert.equal(held.length, 1);
    assert.equal(held[0]?.decision, 'allowed');
    assert.ok((held[0]?.bytes_up ?? 0) > 0, 'the request went through the tunnel before the cancel');
    await eventually(async () => (await r.server.stats()).open === 0, 10_000, 'the held connection to be closed by the proxy');
    assert.equal(proxyDirs().length, 0);
  });
});
