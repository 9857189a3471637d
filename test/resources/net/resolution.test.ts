// Authorization after resolution: every A and AAAA answer of a name is classified, and one refused
// answer refuses the name. The answers come from a real DNS server on loopback (test/support),
// queried through the resolver the runtime uses; nothing here connects anywhere.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { authorizeDestination, dnsServerResolver, systemResolver, WEB_SCHEMES, type HostResolver } from '../../../src/resources/index.js';
import { answersFrom, TestDnsServer } from '../../support/dns-server.js';
import { assertRefused, grantOf } from './fixtures.js';

describe('every resolved address is classified', () => {
  let dns: TestDnsServer;
  let resolver: HostResolver;
  before(async () => {
    dns = await TestDnsServer.start(
      answersFrom({
        'metadata.test': { A: ['169.254.169.254'] },
        'mapped.test': { AAAA: ['::ffff:10.0.0.1'] },
        'nat64.test': { AAAA: ['64:ff9b::a9fe:a9fe'] },
        'mixed.test': { A: ['8.8.8.8', '10.0.0.1'] },
        'mixed6.test': { A: ['8.8.8.8'], AAAA: ['fd00::1'] },
        'public.test': { A: ['8.8.8.8'], AAAA: ['2606:4700::1'] },
        'internal.test': { A: ['10.1.2.3'] },
        'metadata.google.internal': { A: ['169.254.169.254'] },
        'metadata.goog': { A: ['169.254.169.254'] },
      }),
    );
    resolver = dnsServerResolver({ servers: [dns.server] });
  });
  after(async () => {
    await dns.close();
  });
  const every = grantOf({ hosts: ['*'] });

  it('a name that resolves to 169.254.169.254 is refused as metadata, even under a range covering it', async () => {
    await assertRefused(authorizeDestination('http://metadata.test/latest/', { schemes: WEB_SCHEMES, grant: every, resolver }), {
      reason: 'address_class',
      host: 'metadata.test',
      address: '169.254.169.254',
      class: 'metadata',
    });
    const wide = grantOf({ hosts: ['*'], private_addresses: ['169.254.0.0/16'] });
    await assertRefused(authorizeDestination('http://metadata.test/', { schemes: WEB_SCHEMES, grant: wide, resolver }), { class: 'metadata' });
  });

  it('an AAAA of ::ffff:10.0.0.1 is the private 10.0.0.1; NAT64 64:ff9b::a9fe:a9fe is the metadata address', async () => {
    await assertRefused(authorizeDestination('http://mapped.test/', { schemes: WEB_SCHEMES, grant: every, resolver }), { address: '::ffff:a00:1', class: 'private' });
    await assertRefused(authorizeDestination('http://nat64.test/', { schemes: WEB_SCHEMES, grant: every, resolver }), { address: '64:ff9b::a9fe:a9fe', class: 'metadata' });
    // Granting the IPv4 grants its mapped form: it is one destination.
    const d = await authorizeDestination('http://mapped.test/', { schemes: WEB_SCHEMES, grant: grantOf({ hosts: ['mapped.test'], private_addresses: ['10.0.0.0/8'] }), resolver });
    assert.deepEqual(d.connectTo.embedded, { ipv4: '10.0.0.1', via: 'ipv4_mapped' });
  });

  it('one public and one private answer: refused (A+A and A+AAAA)', async () => {
    await assertRefused(authorizeDestination('http://mixed.test/', { schemes: WEB_SCHEMES, grant: every, resolver }), { address: '10.0.0.1', class: 'private' });
    await assertRefused(authorizeDestination('http://mixed6.test/', { schemes: WEB_SCHEMES, grant: every, resolver }), { address: 'fd00::1', class: 'private' });
  });

  it('only public answers: authorized, every answer kept, the first one pinned, SNI the name', async () => {
    const d = await authorizeDestination('https://PUBLIC.test./x', { schemes: WEB_SCHEMES, grant: grantOf({ hosts: ['public.test:443'] }), resolver });
    assert.equal(d.url, 'https://public.test/x');
    assert.deepEqual(d.addresses.map((a) => [a.address, a.class]), [['8.8.8.8', 'public'], ['2606:4700::1', 'public']]);
    assert.equal(d.connectTo.address, '8.8.8.8');
    assert.equal(d.servername, 'public.test');
    assert.equal(d.port, 443);
  });

  it('a private answer is allowed when the grant names both the host and the range', async () => {
    const spec = { hosts: ['internal.test'], private_addresses: ['10.0.0.0/8'] };
    assert.equal((await authorizeDestination('http://internal.test/', { schemes: WEB_SCHEMES, grant: grantOf(spec), resolver })).connectTo.address, '10.1.2.3');
    await assertRefused(authorizeDestination('http://internal.test/', { schemes: WEB_SCHEMES, grant: grantOf({ hosts: ['internal.test'] }), resolver }), { class: 'private' });
    await assertRefused(authorizeDestination('http://internal.test/', { schemes: WEB_SCHEMES, grant: grantOf({ ...spec, hosts: ['other.test'] }), resolver }), { reason: 'host_not_granted' });
  });

  it('metadata names are refused before any lookup, unless the grant lists the name literally', async () => {
    const asked = dns.queries.length;
    for (const url of ['http://metadata.google.internal/computeMetadata/v1/', 'http://METADATA.GOOGLE.INTERNAL./', 'http://metadata.goog/']) {
      await assertRefused(authorizeDestination(url, { schemes: WEB_SCHEMES, grant: grantOf({ hosts: ['*', '*.internal'], private_addresses: ['169.254.169.254'] }), resolver }), {
        reason: 'metadata_name',
      });
    }
    assert.equal(dns.queries.length, asked, 'no query was sent for a metadata name');
    const named = grantOf({ hosts: ['metadata.google.internal'], private_addresses: ['169.254.169.254'] });
    assert.equal((await authorizeDestination('http://metadata.google.internal/', { schemes: WEB_SCHEMES, grant: named, resolver })).connectTo.class, 'metadata');
  });

  it('a host outside the grant is refused before it is resolved; a name with no address is refused as unresolved', async () => {
    const asked = dns.queries.length;
    await assertRefused(authorizeDestination('http://public.test/', { schemes: WEB_SCHEMES, grant: grantOf({ hosts: ['api.test'] }), resolver }), { reason: 'host_not_granted' });
    assert.equal(dns.queries.length, asked);
    await assertRefused(authorizeDestination('http://nowhere.test/', { schemes: WEB_SCHEMES, grant: every, resolver }), { reason: 'unresolved', host: 'nowhere.test' });
  });

  it('a scoped answer (getaddrinfo may return fe80::1%eth0) is refused as a zone id', async () => {
    const scoped: HostResolver = { resolve: () => Promise.resolve([{ address: 'fe80::1%eth0', family: 6 }]) };
    await assertRefused(authorizeDestination('http://scoped.test/', { schemes: WEB_SCHEMES, grant: grantOf({ hosts: ['*'], private_addresses: ['fe80::/10'] }), resolver: scoped }), {
      reason: 'zone_id',
      address: 'fe80::1%eth0',
    });
  });

  it('the system resolver reads /etc/hosts: localhost is loopback and refused', async () => {
    await assertRefused(authorizeDestination('http://localhost:8080/', { schemes: WEB_SCHEMES, grant: every, resolver: systemResolver() }), { reason: 'address_class', class: 'loopback' });
  });

  it('an aborted authorization rejects with the abort reason and leaves no resolver running', async () => {
    const silent = await TestDnsServer.start(() => [], '127.0.0.1');
    const server = silent.server;
    await silent.close(); // nothing answers on that port any more
    const ac = new AbortController();
    const work = authorizeDestination('http://public.test/', { schemes: WEB_SCHEMES, grant: every, resolver: dnsServerResolver({ servers: [server], timeoutMs: 5000, tries: 3 }), signal: ac.signal });
    ac.abort(new Error('stop'));
    await assert.rejects(work, /stop/);
  });
});
