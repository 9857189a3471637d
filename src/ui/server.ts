// `toolgate ui`: the operator's web view, on loopback only. The page and its modules are static
// and hold nothing; every datum comes from /api/*, which needs `Authorization: Bearer <token>`
// (compared in constant time). The page takes the token from the URL's fragment (never sent to
// the server, never in a log or a Referer) and sends it as that header, so no cookie exists
// and a cross-site request carries no credential. Host is checked against the loopback names
// (DNS rebinding), Origin on writes, and every response carries a CSP that runs only this
// origin's scripts and the page's own import map (by hash).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constantTimeEqual, ToolgateError } from '../protocol/index.js';
import type { Runtime } from '../runtime/index.js';
import { decideApproval, reconcileAll, settleByHand } from './actions.js';
import { artifactView } from './artifact-view.js';
import { loadAssets } from './assets.js';
import { auditOf, overviewOf, timelineOf } from './view-data.js';

export interface UiServeOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** A loopback address: 127.0.0.1 (default) or ::1. */
  readonly host?: '127.0.0.1' | '::1';
  readonly token: string;
  /** Recorded as who decided an approval (default `ui`). */
  readonly operator?: string;
  readonly onError?: (error: Error) => void;
}

export interface UiServing {
  /** The base URL, without the token. */
  readonly url: string;
  /** The URL to open: the token in the fragment. */
  readonly openUrl: string;
  readonly port: number;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  invalid_request: 400,
  not_found: 404,
  precondition_failed: 409,
  secret_path: 403,
  limit_exceeded: 413,
};

function headers(csp: string, type: string): Record<string, string> {
  return {
    'content-type': type,
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  };
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    throw new ToolgateError('invalid_request', 'the body must be application/json', { faults: [{ pointer: '', message: 'content-type application/json' }] });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ToolgateError('limit_exceeded', `request body over ${MAX_BODY} bytes`, { limit: 'body_bytes', max: MAX_BODY });
    chunks.push(chunk as Buffer);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    body = null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ToolgateError('invalid_request', 'the body must be a JSON object', { faults: [{ pointer: '', message: 'a JSON object' }] });
  }
  return body as Record<string, unknown>;
}

export async function serveUi(rt: Runtime, opts: UiServeOptions): Promise<UiServing> {
  if (opts.token.length < 16) throw new RangeError('the ui token must be at least 16 characters');
  const host = opts.host ?? '127.0.0.1';
  const assets = loadAssets();
  const expected = Buffer.from(`Bearer ${opts.token}`);
  const operator = opts.operator ?? 'ui';
  const onError = opts.onError ?? (() => {});
  const csp = [
    "default-src 'none'",
    `script-src 'self' ${assets.importMapHash}`,
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  let port = 0;

  const send = (res: ServerResponse, status: number, type: string, body: Buffer | string, extra: Record<string, string> = {}): void => {
    res.writeHead(status, { ...headers(csp, type), ...extra }).end(body);
  };
  const sendJson = (res: ServerResponse, status: number, value: unknown, extra: Record<string, string> = {}): void =>
    send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), extra);
  const sendError = (res: ServerResponse, e: ToolgateError, status = STATUS_OF_CODE[e.code] ?? 500, extra: Record<string, string> = {}): void =>
    sendJson(res, status, { error: e.toBody() }, extra);

  const api = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const given = Buffer.from(req.headers.authorization ?? '');
    if (!constantTimeEqual(given, expected)) {
      sendError(res, new ToolgateError('invalid_request', 'a valid token is required', { faults: [{ pointer: '', message: 'Authorization: Bearer <token>' }] }), 401, { 'www-authenticate': 'Bearer' });
      return;
    }
    let parts: string[];
    try {
      parts = path.split('/').slice(2).map(decodeURIComponent);
    } catch {
      return sendError(res, new ToolgateError('invalid_request', 'a malformed escape in the path', { faults: [{ pointer: '', message: path }] }));
    }
    const method = req.method ?? 'GET';
    if (method === 'GET' && parts.length === 1 && parts[0] === 'overview') return sendJson(res, 200, await overviewOf(rt));
    if (method === 'GET' && parts.length === 1 && parts[0] === 'audit') return sendJson(res, 200, await auditOf(rt));
    if (method === 'GET' && parts.length === 2 && parts[0] === 'tasks') return sendJson(res, 200, { task_id: parts[1], receipts: await timelineOf(rt, parts[1] as string) });
    if (method === 'GET' && parts.length === 3 && parts[0] === 'artifacts' && /^\d{1,6}$/.test(parts[2] as string)) {
      const view = await artifactView(rt, parts[1] as string, Number(parts[2]));
      // Shown as text whatever it holds: never rendered or run by the browser.
      return send(res, 200, 'text/plain; charset=utf-8', view.body, {
        'x-artifact-bytes': String(view.bytes),
        'x-artifact-truncated': String(view.truncated),
        'content-security-policy': "default-src 'none'; sandbox",
      });
    }
    if (method === 'POST') {
      // A browser sends Origin on every POST; one from another site is refused before any body is read.
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) {
        return sendError(res, new ToolgateError('invalid_request', 'cross-origin request refused', { faults: [{ pointer: '', message: 'Origin' }] }), 403);
      }
      if (parts.length === 2 && parts[0] === 'approvals') return sendJson(res, 200, await decideApproval(rt, parts[1] as string, await jsonBody(req), operator));
      if (parts.length === 2 && parts[0] === 'effects' && parts[1] === 'settle') return sendJson(res, 200, await settleByHand(rt, await jsonBody(req)));
      if (parts.length === 1 && parts[0] === 'reconcile') return sendJson(res, 200, await reconcileAll(rt));
    }
    sendError(res, new ToolgateError('not_found', `no ${method} ${path}`, { path }));
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Only the loopback names of this port: a DNS-rebound name reaching 127.0.0.1 is refused.
    const allowed = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
    if (!allowed.includes(req.headers.host ?? '')) {
      return sendError(res, new ToolgateError('invalid_request', 'Host is not this loopback server', { faults: [{ pointer: '', message: 'Host' }] }), 403);
    }
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path.startsWith('/api/')) return api(req, res, path);
    // Browsers ask for it on their own; the view has none.
    if (path === '/favicon.ico') return void res.writeHead(204, headers(csp, 'image/x-icon')).end();
    const asset = req.method === 'GET' || req.method === 'HEAD' ? assets.files.get(path) : undefined;
    if (asset === undefined) return sendError(res, new ToolgateError('not_found', `no ${path}`, { path }));
    send(res, 200, asset.type, req.method === 'HEAD' ? '' : asset.body);
  };

  const server: Server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      if (ToolgateError.isInstance(e)) return sendError(res, e);
      onError(e instanceof Error ? e : new Error(String(e)));
      if (!res.headersSent) sendError(res, new ToolgateError('internal_error', 'the web view failed to answer', { key: 'ui' }));
      else res.end();
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      server.on('error', onError);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://${host === '::1' ? '[::1]' : host}:${port}/`;
  let closing: Promise<void> | undefined;
  return {
    url,
    openUrl: `${url}#token=${encodeURIComponent(opts.token)}`,
    port,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
