// `toolgate serve --http`: Streamable HTTP for both protocol eras. 2026-07-28 requests go to the
// SDK's per-request handler; 2025-era requests go to sessions kept here, because in the SDK's
// stateless fallback a client's cancellation never reaches the running call (docs/mcp-notes.md).
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from '@modelcontextprotocol/server';
import { constantTimeEqual, newTaskId } from '../protocol/index.js';
import { entryOf } from '../registry/index.js';
import type { Runtime } from '../runtime/index.js';
import { BodyTooLarge, sendWebResponse, webRequestHead, webRequestOf } from './http-bridge.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';
import { ToolListing } from './tool-listing.js';

export interface HttpServeOptions extends McpServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1: nothing listens beyond loopback unless asked. */
  readonly host?: string;
  /** Default `/mcp`. */
  readonly path?: string;
  /** Host header names accepted (DNS rebinding protection). Default: localhost names. */
  readonly allowedHosts?: readonly string[];
  /** Origin host names accepted from browsers. Default: localhost names. */
  readonly allowedOrigins?: readonly string[];
  /** When set, every request needs `Authorization: Bearer <token>`. */
  readonly bearerToken?: string;
  /** Task of 2026-07-28 requests, which have no session. Default: one fresh task per server. */
  readonly taskId?: string;
  /** 2025-era sessions kept at once; the least recently used one is closed beyond it. Default 64. */
  readonly maxSessions?: number;
  /** A 2025-era session unused this long is closed. Default 30 min. */
  readonly sessionIdleMs?: number;
  /** Largest request body read. Default 4 MiB (the SDK's own bound). */
  readonly maxRequestBodyBytes?: number;
  readonly onError?: (error: Error) => void;
}

export interface HttpServing {
  readonly url: string;
  readonly port: number;
  /** Closes sessions (aborting their running calls), the listener and open connections. */
  close(): Promise<void>;
}

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  lastUsed: number;
}

function jsonError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export async function serveMcpHttp(rt: Runtime, opts: HttpServeOptions): Promise<HttpServing> {
  const listing = new ToolListing(rt.registry.current().map(entryOf));
  const host = opts.host ?? '127.0.0.1';
  const path = opts.path ?? '/mcp';
  const allowedHosts = [...(opts.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [...(opts.allowedOrigins ?? localhostAllowedOrigins())];
  const bodyLimit = opts.maxRequestBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = opts.maxSessions ?? 64;
  const idleMs = opts.sessionIdleMs ?? 30 * 60_000;
  const modernTask = opts.taskId ?? newTaskId();
  const token = opts.bearerToken === undefined ? undefined : Buffer.from(`Bearer ${opts.bearerToken}`);
  const onError = opts.onError ?? (() => {});

  const modern = createMcpHandler(() => createMcpServer(rt, listing, { taskId: modernTask }, opts), {
    legacy: 'reject',
    onerror: onError,
    maxRequestBodySize: bodyLimit,
  });
  const sessions = new Map<string, Session>();

  const closeSession = async (id: string): Promise<void> => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.server.close().catch(onError);
  };

  const legacy = async (request: Request): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const s = sessions.get(id);
      if (!s) return jsonError(404, 'Session not found');
      s.lastUsed = Date.now();
      return s.transport.handleRequest(request);
    }
    if (sessions.size >= maxSessions) {
      const oldest = [...sessions.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
      if (oldest) await closeSession(oldest[0]);
    }
    // One session is one task; a reconnect is a new session and so a new task.
    const server = createMcpServer(rt, listing, { taskId: newTaskId() }, opts);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (sid) => {
        sessions.set(sid, { transport, server, lastUsed: Date.now() });
      },
      onsessionclosed: (sid) => {
        sessions.delete(sid);
      },
      maxRequestBodySize: bodyLimit,
    });
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Not an initialize that opened a session: nothing will use this instance again.
    if (transport.sessionId === undefined) await server.close().catch(onError);
    return response;
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<Response> => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname !== path) return jsonError(404, 'Not found');
    // Host, Origin and the token are checked before any body is read.
    const head = webRequestHead(req);
    const rejected = hostHeaderValidationResponse(head, allowedHosts) ?? originValidationResponse(head, allowedOrigins);
    if (rejected) return rejected;
    if (token !== undefined) {
      const given = Buffer.from(head.headers.get('authorization') ?? '');
      if (!constantTimeEqual(given, token)) return jsonError(401, 'Unauthorized', { 'www-authenticate': 'Bearer' });
    }
    let request: Request;
    try {
      request = await webRequestOf(req, res, head, bodyLimit);
    } catch (e) {
      if (e instanceof BodyTooLarge) return jsonError(413, e.message);
      throw e;
    }
    return (await isLegacyRequest(request, undefined, { maxRequestBodySize: bodyLimit })) ? legacy(request) : modern.fetch(request);
  };

  const http: HttpServer = createServer((req, res) => {
    route(req, res)
      .then((response) => sendWebResponse(res, response))
      .catch((e: unknown) => {
        onError(e instanceof Error ? e : new Error(String(e)));
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end();
      });
  });

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of sessions) if (now - s.lastUsed > idleMs) void closeSession(id);
  }, Math.min(idleMs, 60_000));
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    port,
    close: () =>
      (closing ??= (async () => {
        clearInterval(sweep);
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        await Promise.all([...sessions.keys()].map(closeSession));
        await modern.close();
        http.closeAllConnections();
        await stopped;
      })()),
  };
}
