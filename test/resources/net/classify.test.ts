// The classifier against an independent oracle (node:net BlockList over the RFC ranges), and the
// invariant that an IPv6 form carrying an IPv4 address is classified as that IPv4 address.
import assert from 'node:assert/strict';
import { BlockList } from 'node:net';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { classifyAddress, METADATA_ADDRESSES } from '../../../src/resources/index.js';

const ORACLE: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['224.0.0.0', 4, 'multicast'],
];
const lists = new Map<string, BlockList>();
for (const [net, bits, cls] of ORACLE) {
  const list = lists.get(cls) ?? new BlockList();
  list.addSubnet(net, bits, 'ipv4');
  lists.set(cls, list);
}
function oracle(v4: string): string | null {
  if (METADATA_ADDRESSES.has(v4)) return 'metadata';
  for (const [cls, list] of lists) if (list.check(v4, 'ipv4')) return cls;
  return null;
}

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((p) => p.join('.'));
// Biased toward the special ranges, so each is hit often.
const interesting = fc.oneof(ipv4, ...ORACLE.map(([net, bits]) => fc.nat(2 ** (32 - bits) - 1).map((n) => {
  const base = net.split('.').reduce((a, o) => a * 256 + Number(o), 0);
  const x = base + n;
  return [x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255].join('.');
})), fc.constantFrom(...METADATA_ADDRESSES).filter((a) => a.includes('.')));

describe('address classification', () => {
  it('agrees with a BlockList of the RFC 1918 / 6598 / 3927 / 5771 / 1122 ranges (property)', () => {
    fc.assert(
      fc.property(interesting, (a) => {
        const expected = oracle(a);
        const got = classifyAddress(a).class;
        if (expected !== null) assert.equal(got, expected, a);
        else assert.ok(got === 'public' || got === 'reserved' || got === 'broadcast', `${a}: ${got}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('an IPv6 address that carries an IPv4 one is classified as that IPv4 address (property)', () => {
    fc.assert(
      fc.property(interesting, (a) => {
        const cls = classifyAddress(a).class;
        const hex = a.split('.').map(Number);
        const tail = `${((hex[0] ?? 0) * 256 + (hex[1] ?? 0)).toString(16)}:${((hex[2] ?? 0) * 256 + (hex[3] ?? 0)).toString(16)}`;
        for (const [form, via] of [[`::ffff:${a}`, 'ipv4_mapped'], [`::ffff:0:${tail}`, 'ipv4_translated'], [`64:ff9b::${tail}`, 'nat64'], [`64:ff9b:1::${tail}`, 'nat64']] as const) {
          const c = classifyAddress(form);
          assert.equal(c.class, cls, form);
          assert.deepEqual(c.embedded, { ipv4: a, via }, form);
        }
        if (!a.startsWith('0.0.0.')) assert.equal(classifyAddress(`::${a}`).class, cls, `::${a}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('IPv6 outside 2000::/3 is never public; tunnels (6to4, Teredo) are reserved', () => {
    assert.equal(classifyAddress('4000::1').class, 'reserved');
    assert.equal(classifyAddress('2002:a9fe:a9fe::1').class, 'reserved');
    assert.equal(classifyAddress('2001::1').class, 'reserved');
    assert.equal(classifyAddress('2001:db8::1').class, 'reserved');
    assert.equal(classifyAddress('2606:4700::1').class, 'public');
    assert.throws(() => classifyAddress('0x7f.1'), TypeError);
    assert.throws(() => classifyAddress('fe80::1%eth0'), TypeError);
  });
});
