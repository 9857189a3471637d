import ipaddr from 'ipaddr.js';

/** Answers whether an address is in a grant's `private_addresses`; `exact`: only an entry that is this one address. */
export type AddressMatcher = (address: string, exact: boolean) => boolean;

/**
 * Compiled once per grant. Entries are already validated by the grant schema (canonical text, no
 * IPv4 short forms); an address is compared in the family it is written in (resources/net hands
 * an IPv6 address that carries an IPv4 over as that IPv4: `grantedForm`).
 */
export function addressMatcher(entries: readonly string[]): AddressMatcher {
  const v4: [ipaddr.IPv4, number][] = [];
  const v6: [ipaddr.IPv6, number][] = [];
  for (const entry of entries) {
    const [address, bits] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), -1];
    if (address.kind() === 'ipv4') v4.push([address as ipaddr.IPv4, bits < 0 ? 32 : bits]);
    else v6.push([address as ipaddr.IPv6, bits < 0 ? 128 : bits]);
  }
  const same = (a: ipaddr.IPv4 | ipaddr.IPv6, b: ipaddr.IPv4 | ipaddr.IPv6) => a.toNormalizedString() === b.toNormalizedString();
  return (address, exact) => {
    if (ipaddr.IPv4.isValidFourPartDecimal(address)) {
      const a = ipaddr.IPv4.parse(address);
      return v4.some(([net, bits]) => (exact ? bits === 32 && same(net, a) : a.match(net, bits)));
    }
    if (!ipaddr.IPv6.isValid(address)) return false;
    const a = ipaddr.IPv6.parse(address);
    return v6.some(([net, bits]) => (exact ? bits === 128 && same(net, a) : a.match(net, bits)));
  };
}
