// A redirect is a new destination: its Location is resolved against the current URL and authorized
// from the start (normalized, granted, resolved again, classified). A real server on 127.0.0.2
// sends each Location; the connector side follows only what authorizeRedirect returns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorizeDestination, authorizeRedirect, dnsServerResolver, pinnedRequestOptions, WEB_SCHEMES, type AuthorizeOptions } from '../../../src/resources/index.js';
import { TestDnsServer } from '../../support/dns-server.js';
import { assertRefused, get, grantOf, RecordingServer } from './fixtures.js';

describe('every redirect is authorized again as a new destination', () => {
  let dns: TestDnsServer;
  let server: RecordingServer;
  let options: AuthorizeOptions;
  before(async () => {
    server = await RecordingServer.start('127.0.0.2', 0, (req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      res.writeHead(to === null ? 200 : 302, to === null ? {} : { location: to });
      res.end();
    });
    dns = await TestDnsServer.start((q) => {
      if (q.type === 'AAAA') return q.name.endsWith('.test') ? [] : 'nxdomain';
      if (q.name === 'redirect.test') return ['127.0.0.2'];
      if (q.name === 'other.test') return ['127.0.0.2'];
      if (q.name === 'rebinds.test') return q.nth === 0 ? ['127.0.0.2'] : ['127.0.0.1'];
      if (q.name === 'meta.test') return ['169.254.169.254'];
      return 'nxdomain';
    });
    options = { schemes: WEB_SCHEMES, grant: grantOf({ hosts: ['*'], private_addresses: ['127.0.0.2'] }), resolver: dnsServerResolver({ servers: [dns.server] }) };
  });
  after(async () => {
    await Promise.all([server.close(), dns.close()]);
  });

  /** Asks the real server for a redirect to `location` and authorizes what it sent back. */
  async function follow(location: string, from = 'redirect.test') {
    const current = await authorizeDestination(`http://${from}:${server.port}/start?to=${encodeURIComponent(location)}`, options);
    const res = await get(pinnedRequestOptions(current));
    assert.equal(res.status, 302);
    const sent = res.headers.location;
    assert.equal(sent, location);
    return { current, next: authorizeRedirect(current, sent, options) };
  }

  it('a relative Location stays on the destination: authorized, nothing changed', async () => {
    const { next } = await follow('/next?x=1');
    const r = await next;
    assert.equal(r.destination.url, `http://redirect.test:${server.port}/next?x=1`);
    assert.deepEqual([r.hostChanged, r.schemeChanged], [false, false]);
  });

  it('a change of host or scheme is authorized and reported, so the connector asks for a new decision', async () => {
    const other = await (await follow(`//OTHER.test.:${server.port}/x`)).next;
    assert.deepEqual([other.destination.host, other.hostChanged, other.schemeChanged], ['other.test', true, false]);
    const tls = await (await follow(`https://redirect.test:${server.port}/x`)).next;
    assert.deepEqual([tls.hostChanged, tls.schemeChanged], [false, true]);
    const port = await (await follow(`http://redirect.test:1/x`)).next;
    assert.equal(port.hostChanged, true, 'another port is another destination');
  });

  it('redirects to metadata, loopback aliases, credentials or foreign schemes are refused', async () => {
    const cases: [string, Record<string, string>][] = [
      ['http://169.254.169.254/latest/meta-data/', { reason: 'address_class', class: 'metadata' }],
      ['http://0xa9fea9fe/', { reason: 'address_class', class: 'metadata' }],
      ['http://meta.test/', { reason: 'address_class', class: 'metadata' }],
      ['http://metadata.google.internal/computeMetadata/v1/', { reason: 'metadata_name' }],
      [`http://0x7f.1:${server.port}/`, { reason: 'address_class', class: 'loopback', address: '127.0.0.1' }],
      ['http://[::ffff:127.0.0.1]/', { reason: 'address_class', class: 'loopback' }],
      ['http://user:secret@redirect.test/', { reason: 'userinfo' }],
      ['file:///etc/passwd', { reason: 'scheme' }],
      ['gopher://127.0.0.2:25/', { reason: 'scheme' }],
    ];
    for (const [location, expected] of cases) {
      const { next } = await follow(location);
      await assertRefused(next, expected);
    }
  });

  it('a redirect back to a name that now resolves elsewhere is refused: it is resolved again', async () => {
    const { current, next } = await follow('/again', 'rebinds.test');
    assert.equal(current.connectTo.address, '127.0.0.2');
    await assertRefused(next, { reason: 'address_class', address: '127.0.0.1', class: 'loopback' });
  });
});
