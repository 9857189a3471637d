/** What the proxy reads before it decides: the request line and headers of one HTTP/1.x request. */
export type RequestHead =
  | { readonly kind: 'connect'; readonly authority: string }
  | { readonly kind: 'http'; readonly method: string; readonly target: string; readonly headers: readonly (readonly [string, string])[] };

/** A head the proxy cannot take: answered with 400 and recorded refused. */
export interface BadHead {
  readonly kind: 'bad';
  readonly why: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Where the head ends (`\r\n\r\n`), or -1. */
export function headEnd(buf: Buffer): number {
  const at = buf.indexOf('\r\n\r\n');
  return at === -1 ? -1 : at + 4;
}

/**
 * Parses a proxy request head: `CONNECT host:port HTTP/1.1` (a tunnel) or an absolute-form
 * request (`GET http://host/path HTTP/1.1`). Strict: a proxy that guesses at a malformed head is
 * how request smuggling starts, and every client this serves (curl, npm, pip, git) writes these
 * two forms exactly.
 */
export function parseRequestHead(head: Buffer): RequestHead | BadHead {
  const text = head.toString('latin1');
  const lines = text.slice(0, -4).split('\r\n');
  const [line, ...rest] = lines;
  const parts = (line ?? '').split(' ');
  if (parts.length !== 3) return { kind: 'bad', why: 'the request line is not METHOD TARGET VERSION' };
  const [method, target, version] = parts as [string, string, string];
  if (!TOKEN.test(method)) return { kind: 'bad', why: 'the method is not a token' };
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') return { kind: 'bad', why: `unsupported version ${JSON.stringify(version.slice(0, 16))}` };
  const headers: [string, string][] = [];
  for (const l of rest) {
    const colon = l.indexOf(':');
    // Obsolete line folding and names with spaces are refused: they parse differently upstream.
    if (colon <= 0 || !TOKEN.test(l.slice(0, colon))) return { kind: 'bad', why: 'a header line is malformed' };
    headers.push([l.slice(0, colon), l.slice(colon + 1).trim()]);
  }
  if (method === 'CONNECT') {
    if (!/^(\[[0-9A-Fa-f:.]+\]|[^\s/?#@[\]:]+):[0-9]{1,5}$/.test(target)) return { kind: 'bad', why: 'CONNECT needs host:port' };
    return { kind: 'connect', authority: target };
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) return { kind: 'bad', why: 'a proxy request needs an absolute URL (origin-form is for servers)' };
  return { kind: 'http', method, target, headers };
}

/** Headers of the client's hop only: never forwarded (RFC 9110 §7.6.1, and the proxy's own credentials). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'upgrade', 'host']);

/**
 * The head sent upstream for an absolute-form request: origin-form target, `Host` the authorized
 * authority (a client's own Host would pick another virtual host on that address), hop-by-hop
 * headers dropped, and `Connection: close`: one request per connection, so a keep-alive client's
 * next request, perhaps for another host, comes as a new connection and is authorized again.
 */
export function upstreamHead(method: string, url: URL, headers: readonly (readonly [string, string])[]): Buffer {
  const named = new Set(
    headers
      .filter(([n]) => n.toLowerCase() === 'connection')
      .flatMap(([, v]) => v.split(','))
      .map((s) => s.trim().toLowerCase()),
  );
  const kept = headers.filter(([n]) => !HOP_BY_HOP.has(n.toLowerCase()) && !named.has(n.toLowerCase()));
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...kept.map(([n, v]) => `${n}: ${v}`), 'Connection: close', '', ''];
  return Buffer.from(lines.join('\r\n'), 'latin1');
}
