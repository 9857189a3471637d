import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { destinationRefused } from './refusal.js';

/** The schemes a caller takes, each with its default port (http.request: http/https; git adds git/ssh). */
export type SchemePorts = Readonly<Record<string, number>>;

export const WEB_SCHEMES: SchemePorts = { http: 80, https: 443 };
export const GIT_SCHEMES: SchemePorts = { http: 80, https: 443, git: 9418, ssh: 22 };

export interface DestinationUrl {
  /** The URL as normalized: lowercase scheme and host, A-labels, no trailing dot, no credentials. */
  readonly url: string;
  /** Without the colon: `https`. */
  readonly scheme: string;
  /** A-label name, dotted-quad IPv4 or RFC 5952 IPv6 (no brackets). */
  readonly host: string;
  readonly hostKind: 'name' | 'ipv4' | 'ipv6';
  /** Always explicit: the scheme's default when the URL names none. */
  readonly port: number;
}

// A zone id (`%25eth0`) inside brackets: it picks an interface, so it can reach a link the
// address alone would not; WHATWG refuses it for http(s) anyway, this names the reason.
const ZONE_ID = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\[[^\]]*%/i;

/**
 * One canonical form per destination, so the grant and the classifier see the host the socket
 * will reach. For http(s) WHATWG `URL` already lowercases, turns IDN into A-labels and every
 * numeric IPv4 alias (decimal, octal, hex, short form, percent-encoded) into a dotted quad; for
 * other schemes (`git:`, `ssh:`) its host is opaque, so the host is put through the same host
 * parser (`domainToASCII`) here. Trailing dots are removed: `example.com.` is `example.com`.
 */
export function normalizeUrl(input: string, schemes: SchemePorts): DestinationUrl {
  const refuse = (reason: 'invalid_url' | 'scheme' | 'userinfo' | 'zone_id', host: string | null = null) =>
    destinationRefused({ url: input, host, port: null, address: null, class: null, reason }, `the URL ${JSON.stringify(input)} is refused: ${reason}`);
  if (ZONE_ID.test(input)) throw refuse('zone_id');
  let url: URL;
  try {
    url = new URL(input);
  } catch (cause) {
    throw destinationRefused({ url: input, host: null, port: null, address: null, class: null, reason: 'invalid_url' }, `not a URL: ${JSON.stringify(input)}`, cause);
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const defaultPort = Object.hasOwn(schemes, scheme) ? schemes[scheme] : undefined;
  if (defaultPort === undefined) throw refuse('scheme');
  // Credentials come from configuration at the boundary, never from a URL the model wrote.
  if (url.username !== '' || url.password !== '') throw refuse('userinfo', url.hostname);
  const { host, hostKind } = canonicalHost(url.hostname, input);
  url.hostname = hostKind === 'ipv6' ? `[${host}]` : host;
  const port = url.port === '' ? defaultPort : Number(url.port);
  // WHATWG drops a special scheme's default port from the text; other schemes keep it written.
  if (!isSpecial(scheme)) url.port = String(port);
  // A fragment never leaves the client: the URL recorded is the one sent.
  url.hash = '';
  return { url: url.href, scheme, host, hostKind, port };
}

function isSpecial(scheme: string): boolean {
  return scheme === 'http' || scheme === 'https' || scheme === 'ws' || scheme === 'wss' || scheme === 'ftp' || scheme === 'file';
}

function canonicalHost(hostname: string, input: string): { host: string; hostKind: DestinationUrl['hostKind'] } {
  const invalid = () => destinationRefused({ url: input, host: hostname, port: null, address: null, class: null, reason: 'invalid_url' }, `the host of ${JSON.stringify(input)} is not a valid host`);
  if (hostname === '') throw invalid();
  if (hostname.startsWith('[')) {
    const inner = hostname.slice(1, -1);
    if (isIP(inner) !== 6) throw invalid();
    return { host: new URL(`http://[${inner}]`).hostname.slice(1, -1), hostKind: 'ipv6' };
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(hostname);
  } catch {
    throw invalid();
  }
  // The WHATWG host parser of special schemes: IDNA (UTS 46, A-labels) and the IPv4 number forms.
  let ascii = domainToASCII(decoded);
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1);
  if (ascii === '' || ascii.split('.').some((label) => label === '')) throw invalid();
  if (isIP(ascii) === 4) return { host: ascii, hostKind: 'ipv4' };
  // After the parser, a name left that is all digits and dots is not something to resolve.
  if (/^[0-9.]+$/.test(ascii) || !/^[a-z0-9._-]+$/.test(ascii)) throw invalid();
  return { host: ascii, hostKind: 'name' };
}
