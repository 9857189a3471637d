import type { AuthorizedDestination } from './authorize.js';

/** What a connector's receipt records of where an effect went (issue 16: URL as normalized, address, TLS name). */
export interface DestinationEvidence {
  readonly url: string;
  /** The address the connection went to. */
  readonly address: string;
  readonly port: number;
  /** The TLS server name sent (SNI), `null` for plain text or an IP literal. */
  readonly servername: string | null;
  /** Every address the host resolved to, with its class. */
  readonly addresses: readonly { readonly address: string; readonly class: string }[];
}

export function destinationEvidence(dest: AuthorizedDestination): DestinationEvidence {
  return {
    url: dest.url,
    address: dest.connectTo.address,
    port: dest.port,
    servername: dest.scheme === 'https' ? dest.servername : null,
    addresses: dest.addresses.map((a) => ({ address: a.address, class: a.class })),
  };
}
