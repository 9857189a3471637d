// Every way to write a non-public address in a URL ends at the same canonical address and is
// classified as what it is; credentials, zone ids and foreign schemes are refused before any
// lookup. A test DNS server stands behind the resolver and must receive no query for a literal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorizeDestination, dnsServerResolver, GIT_SCHEMES, normalizeUrl, WEB_SCHEMES, type DestinationRefusal, type HostResolver } from '../../../src/resources/index.js';
import { answersFrom, TestDnsServer } from '../../support/dns-server.js';
import { assertRefused, grantOf } from './fixtures.js';

/** [input, canonical address, class]: numeric and IPv6 forms of non-public addresses. */
export const ADDRESS_ALIASES: readonly (readonly [string, string, string])[] = [
  ['http://2130706433/', '127.0.0.1', 'loopback'],
  ['http://0177.0.0.1/', '127.0.0.1', 'loopback'],
  ['http://0x7f.1/', '127.0.0.1', 'loopback'],
  ['http://0x7f000001/', '127.0.0.1', 'loopback'],
  ['http://127.1/', '127.0.0.1', 'loopback'],
  ['http://127.0.0.1./', '127.0.0.1', 'loopback'],
  ['http://%31%32%37.0.0.1/', '127.0.0.1', 'loopback'],
  ['git://0x7f.1/repo', '127.0.0.1', 'loopback'],
  ['git://0177.0.0.1./repo', '127.0.0.1', 'loopback'],
  ['git://%31%32%37.1/repo', '127.0.0.1', 'loopback'],
  ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1', 'loopback'],
  ['http://[0:0:0:0:0:ffff:7f00:1]/', '::ffff:7f00:1', 'loopback'],
  ['http://[::127.0.0.1]/', '::7f00:1', 'loopback'],
  ['http://[::1]/', '::1', 'loopback'],
  ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254', 'metadata'],
  ['http://2852039166/', '169.254.169.254', 'metadata'],
  ['http://0251.0376.0251.0376/', '169.254.169.254', 'metadata'],
  ['http://[::ffff:a9fe:a9fe]/', '::ffff:a9fe:a9fe', 'metadata'],
  ['http://[64:ff9b::169.254.169.254]/', '64:ff9b::a9fe:a9fe', 'metadata'],
  ['http://[fd00:ec2::254]/', 'fd00:ec2::254', 'metadata'],
  ['http://0/', '0.0.0.0', 'unspecified'],
  ['http://[::]/', '::', 'unspecified'],
  ['http://10.0.0.1/', '10.0.0.1', 'private'],
  ['http://172.16.0.1/', '172.16.0.1', 'private'],
  ['http://192.168.1.1/', '192.168.1.1', 'private'],
  ['http://[::ffff:10.0.0.1]/', '::ffff:a00:1', 'private'],
  ['http://[fc00::1]/', 'fc00::1', 'private'],
  ['http://100.64.0.1/', '100.64.0.1', 'cgnat'],
  ['http://169.254.1.1/', '169.254.1.1', 'link_local'],
  ['http://[fe80::1]/', 'fe80::1', 'link_local'],
  ['http://224.0.0.1/', '224.0.0.1', 'multicast'],
  ['http://[ff02::1]/', 'ff02::1', 'multicast'],
  ['http://255.255.255.255/', '255.255.255.255', 'broadcast'],
  ['http://192.0.2.1/', '192.0.2.1', 'reserved'],
  ['http://[2002:7f00:1::1]/', '2002:7f00:1::1', 'reserved'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'reserved'],
];

/** [input, reason]: refused before any host is looked at or resolved. */
export const URL_REFUSALS: readonly (readonly [string, DestinationRefusal['reason']])[] = [
  ['http://[fe80::1%25eth0]/', 'zone_id'],
  ['git://[fe80::1%25lo]/repo', 'zone_id'],
  ['http://user:pw@example.test/', 'userinfo'],
  ['https://token@example.test/', 'userinfo'],
  ['http://:pw@example.test/', 'userinfo'],
  ['file:///etc/passwd', 'scheme'],
  ['gopher://127.0.0.1:6379/_FLUSHALL', 'scheme'],
  ['javascript:alert(1)', 'scheme'],
  ['http://exa mple.test/', 'invalid_url'],
  ['http://a..test/', 'invalid_url'],
  ['http://foo.0x7f/', 'invalid_url'],
];

describe('numeric, IPv6 and encoded aliases of non-public addresses', () => {
  let dns: TestDnsServer;
  let resolver: HostResolver;
  before(async () => {
    dns = await TestDnsServer.start(answersFrom({}));
    resolver = dnsServerResolver({ servers: [dns.server] });
  });
  after(async () => {
    await dns.close();
  });

  it('each alias is refused as the class of the address it spells, with no DNS query, under a grant of every host', async () => {
    const grant = grantOf({ hosts: ['*'] });
    for (const [input, address, cls] of ADDRESS_ALIASES) {
      await assertRefused(authorizeDestination(input, { schemes: GIT_SCHEMES, grant, resolver }), { reason: 'address_class', address, class: cls });
    }
    assert.equal(dns.queries.length, 0);
  });

  it('an alias of a granted address is that address: the grant names 127.0.0.1 once and every spelling reaches it', async () => {
    const grant = grantOf({ hosts: ['127.0.0.1', '[::ffff:7f00:1]'], private_addresses: ['127.0.0.1'] });
    for (const [input, address] of ADDRESS_ALIASES.filter(([, , c]) => c === 'loopback').filter(([, a]) => a === '127.0.0.1' || a === '::ffff:7f00:1')) {
      const d = await authorizeDestination(input, { schemes: GIT_SCHEMES, grant, resolver });
      assert.equal(d.connectTo.address, address, input);
      assert.equal(d.servername, null, 'an IP literal is never sent as SNI');
    }
  });

  it('a metadata address is refused under a range that covers it; only an entry naming it opens it', async () => {
    const wide = grantOf({ hosts: ['*'], private_addresses: ['169.254.0.0/16', '::ffff:0:0/96', 'fd00::/8'] });
    for (const [input] of ADDRESS_ALIASES.filter(([, , c]) => c === 'metadata')) {
      await assertRefused(authorizeDestination(input, { schemes: WEB_SCHEMES, grant: wide, resolver }), { reason: 'address_class', class: 'metadata' });
    }
    const exact = grantOf({ hosts: ['*'], private_addresses: ['169.254.169.254'] });
    const d = await authorizeDestination('http://2852039166/latest/meta-data/', { schemes: WEB_SCHEMES, grant: exact, resolver });
    assert.equal(d.url, 'http://169.254.169.254/latest/meta-data/');
  });

  it('credentials, zone ids, foreign schemes and malformed hosts are refused by what they are', async () => {
    const grant = grantOf({ hosts: ['*'], private_addresses: ['0.0.0.0/0', '::/0'] });
    for (const [input, reason] of URL_REFUSALS) {
      await assertRefused(authorizeDestination(input, { schemes: WEB_SCHEMES, grant, resolver }), { reason });
    }
    assert.equal(dns.queries.length, 0);
  });

  it('a scheme is taken only where the caller declares it: git: for a git caller, not for a web one', async () => {
    const grant = grantOf({ hosts: ['*'], private_addresses: ['127.0.0.0/8'] });
    await assertRefused(authorizeDestination('git://127.0.0.1/r', { schemes: WEB_SCHEMES, grant, resolver }), { reason: 'scheme' });
    const d = await authorizeDestination('git://127.0.0.1/r', { schemes: GIT_SCHEMES, grant, resolver });
    assert.equal(d.port, 9418);
    assert.equal(d.url, 'git://127.0.0.1:9418/r');
  });
});

describe('host names normalize to one form before the grant sees them', () => {
  it('case, trailing dot, default port and fragment: one URL', () => {
    for (const input of ['HTTPS://Example.TEST./a?b#frag', 'https://example.test:443/a?b', 'https://example.test/a?b']) {
      const n = normalizeUrl(input, WEB_SCHEMES);
      assert.deepEqual({ url: n.url, host: n.host, port: n.port }, { url: 'https://example.test/a?b', host: 'example.test', port: 443 }, input);
    }
    const git = normalizeUrl('git://Example.TEST./r', GIT_SCHEMES);
    assert.deepEqual({ url: git.url, host: git.host, port: git.port }, { url: 'git://example.test:9418/r', host: 'example.test', port: 9418 });
  });

  it('an IDN homograph is its own A-label name, not the Latin name it imitates (both http and git)', () => {
    // U+0430 CYRILLIC SMALL LETTER A in place of the Latin a.
    assert.equal(normalizeUrl('https://\u0430pple.test/', WEB_SCHEMES).host, 'xn--pple-43d.test');
    assert.equal(normalizeUrl('git://\u0430pple.test/r', GIT_SCHEMES).host, 'xn--pple-43d.test');
    assert.equal(normalizeUrl('https://APPLE.test/', WEB_SCHEMES).host, 'apple.test');
  });

  it('a grant of the Latin name does not cover its homograph', async () => {
    const grant = grantOf({ hosts: ['apple.test', '*.apple.test'] });
    const resolver: HostResolver = { resolve: () => Promise.reject(new Error('no lookup expected')) };
    await assertRefused(authorizeDestination('https://\u0430pple.test/', { schemes: WEB_SCHEMES, grant, resolver }), { reason: 'host_not_granted', host: 'xn--pple-43d.test' });
    await assertRefused(authorizeDestination('https://www.\u0430pple.test/', { schemes: WEB_SCHEMES, grant, resolver }), { reason: 'host_not_granted', host: 'www.xn--pple-43d.test' });
  });
});
