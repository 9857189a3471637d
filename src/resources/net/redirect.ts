import { authorizeDestination, type AuthorizeOptions, type AuthorizedDestination } from './authorize.js';
import { destinationRefused } from './refusal.js';

export interface AuthorizedRedirect {
  readonly destination: AuthorizedDestination;
  /** The redirect leaves the host (or port): a connector asks for a new decision before following. */
  readonly hostChanged: boolean;
  /** http → https or back: the effect may differ (and a downgrade exposes what TLS protected). */
  readonly schemeChanged: boolean;
}

/**
 * A redirect is a new destination: `location` is resolved against the current URL and authorized
 * from the start (normalized, granted, resolved again, every address classified). What changed is
 * reported; whether a change needs a new decision is the connector's (http.request asks again).
 */
export async function authorizeRedirect(current: AuthorizedDestination, location: string, options: AuthorizeOptions): Promise<AuthorizedRedirect> {
  let next: string;
  try {
    next = new URL(location, current.url).href;
  } catch (cause) {
    throw destinationRefused({ url: location, host: null, port: null, address: null, class: null, reason: 'invalid_url' }, `redirect to an invalid location ${JSON.stringify(location)}`, cause);
  }
  const destination = await authorizeDestination(next, options);
  return {
    destination,
    hostChanged: destination.host !== current.host || destination.port !== current.port,
    schemeChanged: destination.scheme !== current.scheme,
  };
}
