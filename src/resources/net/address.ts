import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * What an address is, for the question "may an agent's request go there". Only `public` is
 * allowed without the grant naming the address; everything else is refused unless the grant's
 * `private_addresses` covers it (and `metadata` only by an entry naming that one address).
 */
export const ADDRESS_CLASSES = [
  'public',
  'loopback',
  'private',
  'link_local',
  'cgnat',
  'multicast',
  'unspecified',
  'broadcast',
  'reserved',
  'metadata',
] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

/** How an IPv6 address carries an IPv4 one that is what the packets reach in the end. */
export type Embedding = 'ipv4_mapped' | 'ipv4_compatible' | 'ipv4_translated' | 'nat64';

export interface ClassifiedAddress {
  /** Canonical text (RFC 5952 for IPv6), without brackets or zone. */
  readonly address: string;
  readonly family: 4 | 6;
  readonly class: AddressClass;
  /** The IPv4 address an IPv6 one carries, classified in its place (`::ffff:10.0.0.1` is private). */
  readonly embedded?: { readonly ipv4: string; readonly via: Embedding };
}

/**
 * Cloud instance metadata endpoints (AWS/GCP/Azure/OpenStack, AWS IPv6, Alibaba, Oracle):
 * credentials live there, so a grant must name each one by itself, never through a range.
 */
export const METADATA_ADDRESSES: ReadonlySet<string> = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '192.0.0.192']);

/** Names that reach a metadata service from inside a cloud; refused before any lookup. */
export const METADATA_NAMES: ReadonlySet<string> = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

// ipaddr.js names the IANA special-purpose ranges; unnamed space is its `unicast`. Any name not
// listed here (a range a newer ipaddr.js adds) falls to `reserved`: unknown means refused.
const IPV4_RANGES: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'cgnat',
  private: 'private',
};

const IPV6_RANGES: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  uniqueLocal: 'private',
};

// IPv6 prefixes whose last 32 bits are an IPv4 destination (RFC 4291 §2.5.5, RFC 6145, RFC 6052
// well-known and RFC 8215 local-use NAT64). 6to4 and Teredo also carry IPv4 but as tunnel
// endpoints; ipaddr.js calls them `6to4`/`teredo` and they fall to `reserved`.
const EMBEDDING_PREFIXES: readonly (readonly [ipaddr.IPv6, number, Embedding])[] = [
  [ipaddr.IPv6.parse('::ffff:0:0'), 96, 'ipv4_mapped'],
  [ipaddr.IPv6.parse('::ffff:0:0:0'), 96, 'ipv4_translated'],
  [ipaddr.IPv6.parse('64:ff9b::'), 96, 'nat64'],
  [ipaddr.IPv6.parse('64:ff9b:1::'), 48, 'nat64'],
  [ipaddr.IPv6.parse('::'), 96, 'ipv4_compatible'],
];

// Only 2000::/3 is allocated global unicast; ipaddr.js's `unicast` is "anything unnamed".
const GLOBAL_UNICAST_V6: readonly [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

function classifyV4(v4: ipaddr.IPv4): AddressClass {
  const text = v4.toString();
  if (METADATA_ADDRESSES.has(text)) return 'metadata';
  return IPV4_RANGES[v4.range()] ?? 'reserved';
}

function embeddedIn(v6: ipaddr.IPv6): { readonly ipv4: ipaddr.IPv4; readonly via: Embedding } | null {
  const bytes = v6.toByteArray();
  for (const [prefix, bits, via] of EMBEDDING_PREFIXES) {
    if (!v6.match(prefix, bits)) continue;
    // `::` and `::1` sit inside ::/96 but are themselves (unspecified, loopback), not IPv4.
    if (via === 'ipv4_compatible' && bytes.slice(0, 15).every((b) => b === 0) && (bytes[15] ?? 0) <= 1) return null;
    return { ipv4: new ipaddr.IPv4(bytes.slice(12, 16)), via };
  }
  return null;
}

/**
 * Classifies one resolved (or literal) address. Input is a plain dotted-quad or IPv6 text, as a
 * resolver answers or `normalizeUrl` leaves it; anything else (an octal form, a zone id) throws,
 * since the URL layer must already have turned aliases into one canonical form.
 */
export function classifyAddress(text: string): ClassifiedAddress {
  // isIP takes `fe80::1%eth0`; a zone picks an interface, so it is not one canonical destination.
  const family = text.includes('%') ? 0 : isIP(text);
  if (family === 0) throw new TypeError(`not a canonical IP address: ${JSON.stringify(text)}`);
  if (family === 4) {
    const v4 = ipaddr.IPv4.parse(text);
    return { address: v4.toString(), family: 4, class: classifyV4(v4) };
  }
  const v6 = ipaddr.IPv6.parse(text);
  const address = v6.toRFC5952String();
  const embedded = embeddedIn(v6);
  if (embedded) return { address, family: 6, class: classifyV4(embedded.ipv4), embedded: { ipv4: embedded.ipv4.toString(), via: embedded.via } };
  if (METADATA_ADDRESSES.has(address)) return { address, family: 6, class: 'metadata' };
  const named = IPV6_RANGES[v6.range()] ?? 'reserved';
  const cls = named === 'public' && !v6.match(...GLOBAL_UNICAST_V6) ? 'reserved' : named;
  return { address, family: 6, class: cls };
}

/** The address a grant entry is compared with: the IPv4 an IPv6 address carries, else itself. */
export function grantedForm(a: ClassifiedAddress): string {
  return a.embedded?.ipv4 ?? a.address;
}
