// `toolgate serve --http`: Streamable HTTP for both protocol eras. 2026-07-28 requests go to the
// SDK's per-request handler; 2025-era requests go to sessions kept here, because in the SDK's
// stateless fallback a client's cancellation never reaches the running call (docs/mcp-notes.md).
// One client must not block or evict the others: connections and sessions are capped and
// silent connections time out (http-limits.ts, http-connections.ts, http-sessions.ts).
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
} from '@modelcontextprotocol/server';
import { constantTimeEqual, newTaskId, ToolgateError } from '../protocol/index.js';
import type { Runtime } from '../runtime/index.js';
import { guardConnections } from './http-connections.js';
import { resolveHttpLimits, type HttpLimits } from './http-limits.js';
import { SessionTable, sessionLimitResponse } from './http-sessions.js';
import { sendWebResponse, webRequestHead, webRequestOf } from './http-bridge.js';
import { createMcpServer, type McpServerOptions } from './mcp-server.js';
import { ApprovalAsking } from './approval-elicit.js';
import { ToolListing } from './tool-listing.js';

export interface HttpServeOptions extends McpServerOptions, Partial<HttpLimits> {
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
  /** Every 2025-era session runs as this task, not a fresh one (a subtask's host, docs/tasks.md). */
  readonly sessionTaskId?: string;
  readonly onError?: (error: Error) => void;
  /** Serves GET `/metrics` (Prometheus text) behind the same Host, Origin and token checks as `/mcp`. */
  readonly metrics?: () => Promise<{ readonly contentType: string; readonly body: string }>;
}

export interface HttpServing {
  readonly url: string;
  readonly port: number;
  /** The limits in force (the options over the defaults, docs/mcp.md "HTTP limits"). */
  readonly limits: HttpLimits;
  /** Closes sessions (aborting their running calls), the listener and open connections. */
  close(): Promise<void>;
}

/** The id of a JSON-RPC request body, so that a refusal answers the request it refuses. */
async function requestIdOf(request: Request): Promise<string | number | null> {
  const body: unknown = await request
    .clone()
    .json()
    .catch(() => null);
  const id = typeof body === 'object' && body !== null && 'id' in body ? body.id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function jsonError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** A request refused by a limit: the JSON-RPC error carries the code and its data, as the connection and session caps do. */
function limitError(status: number, e: ToolgateError): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: e.message, data: { code: e.code, ...e.data } }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

async function metricsResponse(method: string | undefined, scrape: NonNullable<HttpServeOptions['metrics']>): Promise<Response> {
  if (method !== 'GET' && method !== 'HEAD') return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
  const { contentType, body } = await scrape();
  return new Response(method === 'HEAD' ? null : body, { status: 200, headers: { 'content-type': contentType } });
}

export async function serveMcpHttp(rt: Runtime, opts: HttpServeOptions): Promise<HttpServing> {
  // A new session is a new task, which pins what the registry gives a new task now (its revision,
  // the rollout's cohort: docs/registry.md#rollout): after an upstream's tools changed
  // (docs/gateway.md) it is listed what it will call. A session keeps its listing. Listings are
  // shared per pinned revision (a few: one per rollout cohort), the latest few kept.
  const listings = new Map<string, ToolListing>();
  const listingFor = (task: string): ToolListing => {
    const manifest = rt.registry.manifestFor(task, Date.now());
    let l = listings.get(manifest.revision);
    if (l === undefined) {
      if (listings.size >= 16) listings.delete(listings.keys().next().value as string);
      l = new ToolListing(rt.registry.currentOf(manifest));
      listings.set(manifest.revision, l);
    }
    return l;
  };
  const host = opts.host ?? '127.0.0.1';
  const path = opts.path ?? '/mcp';
  const allowedHosts = [...(opts.allowedHosts ?? localhostAllowedHostnames())];
  const allowedOrigins = [...(opts.allowedOrigins ?? localhostAllowedOrigins())];
  const limits = resolveHttpLimits(opts);
  const bodyLimit = limits.maxRequestBodyBytes;
  const modernTask = opts.taskId ?? newTaskId();
  const listing = listingFor(modernTask);
  const token = opts.bearerToken === undefined ? undefined : Buffer.from(`Bearer ${opts.bearerToken}`);
  const onError = opts.onError ?? (() => {});

  // One instance per modern request: the approval questions (and their key) are shared.
  const asking = new ApprovalAsking(rt, opts);
  const modern = createMcpHandler(() => createMcpServer(rt, listing, { taskId: modernTask, asking }, opts), {
    legacy: 'reject',
    onerror: onError,
    maxRequestBodySize: bodyLimit,
  });
  const sessions = new SessionTable({ maxSessions: limits.maxSessions, sessionIdleMs: limits.sessionIdleMs, onError });

  const legacy = async (request: Request, res: ServerResponse): Promise<Response> => {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const use = sessions.use(id);
      if (!use) return jsonError(404, 'Session not found');
      // In use until the response closes: a running call or an open SSE stream keeps it alive.
      if (res.closed) use.release();
      else res.once('close', use.release);
      return use.session.transport.handleRequest(request);
    }
    const admitted = sessions.reserve();
    if ('limit' in admitted) return sessionLimitResponse(admitted.limit, await requestIdOf(request));
    const { reservation } = admitted;
    try {
      // One session is one task; a reconnect is a new session and so a new task.
      const taskId = opts.sessionTaskId ?? newTaskId();
      const server = createMcpServer(rt, listingFor(taskId), { taskId }, opts);
      // The session is the task: its end (DELETE, idle expiry, shutdown) ends what tools hold for it (shell sessions).
      const closeTasks = server.onclose; // the session's MCP tasks end with it too (mcp-tasks.ts)
      server.onclose = () => {
        closeTasks?.();
        void rt.endTask(taskId);
      };
      const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid): void => reservation.add(sid, { transport, server }),
        onsessionclosed: (sid) => {
          sessions.forget(sid);
          void rt.endTask(taskId);
        },
        maxRequestBodySize: bodyLimit,
      });
      await server.connect(transport);
      const response = await transport.handleRequest(request);
      // Not an initialize that opened a session: nothing will use this instance again.
      if (transport.sessionId === undefined) await server.close().catch(onError);
      return response;
    } finally {
      reservation.settle();
    }
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<Response> => {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    const metrics = pathname === '/metrics' ? opts.metrics : undefined;
    if (pathname !== path && metrics === undefined) return jsonError(404, 'Not found');
    // Host, Origin and the token are checked before any body is read.
    const head = webRequestHead(req);
    const rejected = hostHeaderValidationResponse(head, allowedHosts) ?? originValidationResponse(head, allowedOrigins);
    if (rejected) return rejected;
    if (token !== undefined) {
      const given = Buffer.from(head.headers.get('authorization') ?? '');
      if (!constantTimeEqual(given, token)) return jsonError(401, 'Unauthorized', { 'www-authenticate': 'Bearer' });
    }
    if (metrics !== undefined) return metricsResponse(req.method, metrics);
    let request: Request;
    try {
      request = await webRequestOf(req, res, head, bodyLimit);
    } catch (e) {
      if (ToolgateError.isInstance(e) && e.code === 'limit_exceeded') return limitError(413, e);
      throw e;
    }
    return (await isLegacyRequest(request, undefined, { maxRequestBodySize: bodyLimit })) ? legacy(request, res) : modern.fetch(request);
  };

  const http: HttpServer = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the headers and request timeouts on this interval (default 30 s, which
      // let silent sockets live 90 s); 1 s keeps the bound close to what is documented.
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
    (req, res) => {
      if (!connections.track(req, res)) return;
      route(req, res)
        .then((response) => sendWebResponse(res, response))
        .catch((e: unknown) => {
          onError(e instanceof Error ? e : new Error(String(e)));
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end();
        });
    },
  );
  const connections = guardConnections(http, limits);

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(opts.port, host, () => {
        http.off('error', reject);
        // A later accept error (EMFILE beyond every cap) is reported, not a crash of the process.
        http.on('error', onError);
        resolve();
      });
    });
  } catch (e) {
    // Nothing this call made may outlive a failed start (a port in use, a host not ours).
    connections.dispose();
    await modern.close();
    throw e;
  }
  // Only once listening: a failed start leaves no timer behind.
  const sweep = setInterval(() => sessions.expireIdle(), Math.min(limits.sessionIdleMs, 60_000));
  sweep.unref();
  const port = (http.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`,
    port,
    limits,
    close: () =>
      (closing ??= (async () => {
        clearInterval(sweep);
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        await sessions.closeAll();
        await modern.close();
        await rt.endTask(modernTask);
        http.closeAllConnections();
        connections.dispose();
        await stopped;
      })()),
  };
}
