import http from 'node:http';
import https from 'node:https';
import { connect, type LookupFunction, type Socket } from 'node:net';
import type { AuthorizedDestination } from './authorize.js';

/**
 * A `lookup` for node:net / node:http / node:https that answers only the authorized address and
 * never asks DNS: a name that resolves elsewhere a second time (DNS rebinding) cannot move the
 * connection. Asked for any other host, it fails: a pinned lookup serves one destination.
 */
export function pinnedLookup(dest: AuthorizedDestination): LookupFunction {
  const { address, family } = dest.connectTo;
  return (hostname, options, callback) => {
    if (hostname.toLowerCase().replace(/\.$/, '') !== dest.host) {
      const error: NodeJS.ErrnoException = new Error(`pinned lookup for ${dest.host} asked for ${hostname}`);
      error.code = 'ENOTFOUND';
      process.nextTick(() => callback(error, options.all === true ? [] : ''));
      return;
    }
    // net.connect asks with `all: true` when autoSelectFamily (happy eyeballs) is on, Node 20's default.
    process.nextTick(() => (options.all === true ? callback(null, [{ address, family }]) : callback(null, address, family)));
  };
}

/**
 * An Agent for this destination only: its sockets reach the pinned address, TLS names the host.
 * Not shared and not kept alive, so no pooled socket to an earlier authorization is reused. Its
 * options carry no proxy, and node:http/https never read HTTP(S)_PROXY/NO_PROXY/ALL_PROXY
 * themselves (Node 24's NODE_USE_ENV_PROXY applies to the global agents, not this one).
 */
export function pinnedAgent(dest: AuthorizedDestination): http.Agent {
  const lookup = pinnedLookup(dest);
  if (dest.scheme === 'https') {
    return new https.Agent({ keepAlive: false, lookup, ...(dest.servername === null ? {} : { servername: dest.servername }) });
  }
  return new http.Agent({ keepAlive: false, lookup });
}

/** Options for `http.request` / `https.request` that go to the authorized address and nowhere else. */
export function pinnedRequestOptions(dest: AuthorizedDestination): http.RequestOptions & https.RequestOptions {
  const url = new URL(dest.url);
  return {
    protocol: `${dest.scheme}:`,
    host: dest.host,
    port: dest.port,
    path: `${url.pathname}${url.search}`,
    agent: pinnedAgent(dest),
    lookup: pinnedLookup(dest),
    ...(dest.servername === null ? {} : { servername: dest.servername }),
  };
}

/** A raw TCP connection to the authorized address (git://, a CONNECT tunnel): no name is looked up. */
export function connectPinned(dest: AuthorizedDestination): Socket {
  return connect({ host: dest.connectTo.address, port: dest.port, family: dest.connectTo.family });
}
