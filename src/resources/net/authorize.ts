import { classifyAddress, grantedForm, METADATA_NAMES, type ClassifiedAddress } from './address.js';
import { destinationRefused } from './refusal.js';
import type { HostResolver } from './resolver.js';
import { normalizeUrl, type DestinationUrl, type SchemePorts } from './url.js';

/**
 * What this layer asks of a grant (policy's `CompiledGrant` answers it, caveats included): the
 * host globs, an exact host entry, and the `private_addresses` list.
 */
export interface DestinationGrant {
  /** `host` as the grant's host globs see it: a name, a dotted quad, or `[v6]`. */
  allowsHost(host: string, port: number): boolean;
  /** The grant lists this host literally (not through a glob): what a metadata name needs. */
  namesHost(host: string): boolean;
  /** The grant's `private_addresses` cover the address; `exact`: only an entry that is this one address. */
  allowsAddress(address: string, exact: boolean): boolean;
  /**
   * The host entries (glob, optional port) that the grant and every caveat cover: what a call that
   * may reach any granted host names to policy (shell.exec `network: allowlist`).
   */
  hostEntries?(): readonly { readonly host: string; readonly port: number | null }[];
}

export interface AuthorizeOptions {
  readonly schemes: SchemePorts;
  readonly grant: DestinationGrant;
  readonly resolver: HostResolver;
  readonly signal?: AbortSignal;
}

/** A destination every address of which the grant allows; the only thing a connector may connect to. */
export interface AuthorizedDestination extends DestinationUrl {
  /** Every address the host resolved to (or the literal), each classified: all allowed. */
  readonly addresses: readonly ClassifiedAddress[];
  /** The one address the connection goes to (pinned.ts): the resolver's first answer. */
  readonly connectTo: ClassifiedAddress;
  /** TLS SNI and certificate name: the normalized host name; `null` for an IP literal (RFC 6066 forbids an IP in SNI). */
  readonly servername: string | null;
}

function grantHost(d: DestinationUrl): string {
  return d.hostKind === 'ipv6' ? `[${d.host}]` : d.host;
}

/**
 * Normalize, check the host against the grant, resolve once, classify every answer. One
 * refused address refuses the destination: a name that answers a public and a private address
 * would otherwise reach the private one on the connector's next try or a happy-eyeballs fallback.
 */
export async function authorizeDestination(input: string, options: AuthorizeOptions): Promise<AuthorizedDestination> {
  const target = normalizeUrl(input, options.schemes);
  const refusal = (reason: 'host_not_granted' | 'metadata_name' | 'unresolved' | 'address_class', a: ClassifiedAddress | null, message: string, cause?: unknown) =>
    destinationRefused({ url: target.url, host: target.host, port: target.port, address: a?.address ?? null, class: a?.class ?? null, reason }, message, cause);

  if (!options.grant.allowsHost(grantHost(target), target.port)) {
    throw refusal('host_not_granted', null, `host ${grantHost(target)}:${target.port} is not in the grant`);
  }
  // Refused by name before any lookup: inside a cloud these answer with the metadata address, and
  // outside one a resolver may answer anything for them.
  if (target.hostKind === 'name' && METADATA_NAMES.has(target.host) && !options.grant.namesHost(target.host)) {
    throw refusal('metadata_name', null, `${target.host} is a cloud metadata name; only a grant that lists it exactly may reach it`);
  }

  const addresses = await addressesOf(target, options, refusal);
  for (const a of addresses) {
    if (a.class === 'public') continue;
    if (options.grant.allowsAddress(grantedForm(a), a.class === 'metadata')) continue;
    const via = a.embedded ? ` (${a.embedded.via} ${a.embedded.ipv4})` : '';
    throw refusal('address_class', a, `${target.host} resolves to ${a.address}${via}, a ${a.class} address the grant does not name`);
  }
  const connectTo = addresses[0];
  if (connectTo === undefined) throw refusal('unresolved', null, `${target.host} has no address`);
  return { ...target, addresses, connectTo, servername: target.hostKind === 'name' ? target.host : null };
}

async function addressesOf(
  target: DestinationUrl,
  options: AuthorizeOptions,
  refusal: (reason: 'unresolved', a: null, message: string, cause?: unknown) => Error,
): Promise<readonly ClassifiedAddress[]> {
  if (target.hostKind !== 'name') return [classifyAddress(target.host)];
  let answers;
  try {
    answers = await options.resolver.resolve(target.host, options.signal);
  } catch (cause) {
    options.signal?.throwIfAborted();
    throw refusal('unresolved', null, `${target.host} does not resolve`, cause);
  }
  const seen = new Map<string, ClassifiedAddress>();
  for (const answer of answers) {
    if (answer.address.includes('%')) {
      throw destinationRefused(
        { url: target.url, host: target.host, port: target.port, address: answer.address, class: null, reason: 'zone_id' },
        `${target.host} resolved to a scoped address ${answer.address}`,
      );
    }
    let a: ClassifiedAddress;
    try {
      a = classifyAddress(answer.address);
    } catch (cause) {
      throw refusal('unresolved', null, `${target.host} resolved to something that is not an address: ${JSON.stringify(answer.address)}`, cause);
    }
    if (!seen.has(a.address)) seen.set(a.address, a);
  }
  return [...seen.values()];
}
