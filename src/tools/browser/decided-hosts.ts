// The hosts (host:port, as the grant sees them) a decision allowed for this browser: the URL of
// browser.open/navigate (grant ∧ Cedar in the pipeline) and each new origin the running call's
// recheck allowed. The proxy is given the grant narrowed to these, so a request Playwright does
// not route (a redirect hop) to a granted host no decision covered is refused before it connects.
import { WEB_SCHEMES, normalizeUrl, type DestinationGrant } from '../../resources/index.js';

export class DecidedHosts {
  readonly #keys = new Set<string>();

  allow(url: string): void {
    const k = keyOf(url);
    if (k !== null) this.#keys.add(k);
  }

  has(url: string): boolean {
    const k = keyOf(url);
    return k !== null && this.#keys.has(k);
  }

  /** The grant as the proxy asks it: a host must be granted and decided. */
  gate(grant: DestinationGrant): DestinationGrant {
    return {
      allowsHost: (host, port) => grant.allowsHost(host, port) && this.#keys.has(`${host}:${port}`),
      namesHost: (host) => grant.namesHost(host),
      allowsAddress: (address, exact) => grant.allowsAddress(address, exact),
    };
  }
}

function keyOf(url: string): string | null {
  try {
    const d = normalizeUrl(url, WEB_SCHEMES);
    return `${d.hostKind === 'ipv6' ? `[${d.host}]` : d.host}:${d.port}`;
  } catch {
    return null;
  }
}
