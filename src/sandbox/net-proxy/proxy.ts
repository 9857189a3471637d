import { chownSync, chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolgateError } from '../../protocol/index.js';
import { WEB_SCHEMES, authorizeDestination, connectPinned, type AuthorizedDestination, type DestinationGrant, type HostResolver } from '../../resources/index.js';
import { headEnd, parseRequestHead, upstreamHead, type RequestHead } from './request-head.js';
import { DEFAULT_PROXY_LIMITS, type NetProxyLimits, type NetworkReport, type ProxyConnection } from './report.js';
import { sweepDeadOwners } from '../process-table.js';

export interface NetProxyOptions {
  /** The task's grant: `hosts` and `private_addresses` decide each connection. */
  readonly grant: DestinationGrant;
  /** The runtime's resolver (tests inject their DNS server). */
  readonly resolver: HostResolver;
  /** The call's signal: on abort every socket is closed and no new connection is taken. */
  readonly signal?: AbortSignal;
  readonly limits?: Partial<NetProxyLimits>;
  /** The uid/gid the sandbox runs as, when not the runtime's: it alone (and root) may reach the socket. */
  readonly owner?: { readonly uid: number; readonly gid: number } | null;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The host side of `network: allowlist`: an HTTP proxy on a unix socket that only the sandbox of
 * one call is given. Each connection is a CONNECT tunnel or one absolute-form HTTP request; its
 * destination is authorized by resources/net against the grant (normalized, resolved once, every
 * address classified) and the socket goes to the address that was authorized, never to a second
 * lookup's. Everything is asynchronous on the runtime's event loop; `close()` ends every socket.
 */
export class NetProxy {
  readonly socketPath: string;
  readonly #dir: string;
  readonly #server: Server;
  readonly #o: NetProxyOptions;
  readonly #limits: NetProxyLimits;
  readonly #sockets = new Set<Socket>();
  readonly #records: Mutable<ProxyConnection>[] = [];
  readonly #totals = { allowed: 0, refused: 0, failed: 0, bytes_up: 0, bytes_down: 0, omitted: 0 };
  readonly #started = performance.now();
  #accepted = 0;
  #open = 0;
  #closed: Promise<void> | null = null;
  readonly #onAbort = (): void => void this.close();

  private constructor(dir: string, server: Server, o: NetProxyOptions) {
    this.#dir = dir;
    this.socketPath = join(dir, 'proxy.sock');
    this.#server = server;
    this.#o = o;
    this.#limits = { ...DEFAULT_PROXY_LIMITS, ...o.limits };
    server.on('connection', (c) => this.#accept(c));
  }

  static async start(o: NetProxyOptions): Promise<NetProxy> {
    o.signal?.throwIfAborted();
    // A fresh directory per call, 0700 and owned by the sandbox's user: no other local user can
    // reach this call's proxy (it would borrow the task's grant).
    // A runtime killed with SIGKILL could not remove its proxies' folders.
    sweepDeadOwners(tmpdir(), 'toolgate-net-');
    const dir = mkdtempSync(join(tmpdir(), `toolgate-net-${process.pid}-`));
    const proxy = new NetProxy(dir, createServer({ allowHalfOpen: true, pauseOnConnect: false }), o);
    try {
      await new Promise<void>((resolve, reject) => {
        proxy.#server.once('error', reject);
        proxy.#server.listen(proxy.socketPath, () => {
          proxy.#server.off('error', reject);
          resolve();
        });
      });
      chmodSync(proxy.socketPath, 0o600);
      if (o.owner) {
        chownSync(dir, o.owner.uid, o.owner.gid);
        chownSync(proxy.socketPath, o.owner.uid, o.owner.gid);
      }
    } catch (e) {
      proxy.#server.close();
      rmSync(dir, { recursive: true, force: true });
      throw new ToolgateError('internal_error', `the network proxy could not start: ${(e as Error).message}`, undefined, { cause: e });
    }
    o.signal?.addEventListener('abort', proxy.#onAbort, { once: true });
    return proxy;
  }

  /** Sockets open right now (client and upstream sides); 0 after close. */
  get openSockets(): number {
    return this.#sockets.size;
  }

  /** Every connection so far (those still open with their bytes so far). */
  report(): NetworkReport {
    const now = performance.now();
    return {
      connections: this.#records.map((r) => ({ ...r, duration_ms: r.duration_ms >= 0 ? r.duration_ms : Math.round(now - this.#started - r.started_ms) })),
      ...this.#totals,
    };
  }

  /** Stops taking connections, ends every socket, removes the socket file. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#o.signal?.removeEventListener('abort', this.#onAbort);
      const closed = new Promise<void>((resolve) => this.#server.close(() => resolve()));
      const sockets = [...this.#sockets];
      const gone = sockets.map((s) => (s.closed ? Promise.resolve() : new Promise<void>((resolve) => s.once('close', () => resolve()))));
      for (const s of sockets) s.destroy();
      await Promise.all([closed, ...gone]);
      rmSync(this.#dir, { recursive: true, force: true });
    })();
    return this.#closed;
  }

  #track(s: Socket): void {
    this.#sockets.add(s);
    s.once('close', () => this.#sockets.delete(s));
    s.on('error', () => s.destroy());
  }

  #record(r: Omit<ProxyConnection, 'bytes_up' | 'bytes_down' | 'started_ms' | 'duration_ms'>): Mutable<ProxyConnection> {
    const rec: Mutable<ProxyConnection> = { ...r, bytes_up: 0, bytes_down: 0, started_ms: Math.round(performance.now() - this.#started), duration_ms: -1 };
    this.#totals[r.decision] += 1;
    if (this.#records.length < this.#limits.recorded) this.#records.push(rec);
    else this.#totals.omitted += 1;
    return rec;
  }

  #finish(rec: Mutable<ProxyConnection>): void {
    if (rec.duration_ms < 0) rec.duration_ms = Math.round(performance.now() - this.#started - rec.started_ms);
  }

  #accept(client: Socket): void {
    this.#track(client);
    if (this.#closed) return void client.destroy();
    this.#accepted += 1;
    if (this.#accepted > this.#limits.maxConnections || this.#open >= this.#limits.maxConcurrent) {
      const reason = this.#accepted > this.#limits.maxConnections ? 'connection_limit' : 'concurrency_limit';
      const rec = this.#record({ kind: 'unknown', host: null, port: null, address: null, decision: 'refused', reason });
      this.#finish(rec);
      return answer(client, 503, reason, `toolgate: the proxy took its limit of connections (${reason})`);
    }
    this.#open += 1;
    client.once('close', () => (this.#open -= 1));
    let buf = Buffer.alloc(0);
    const headTimedOut = (): void => void client.destroy();
    client.setTimeout(this.#limits.headTimeoutMs, headTimedOut);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const end = headEnd(buf);
      if (end === -1 && buf.length <= this.#limits.maxHeadBytes) return;
      client.off('data', onData);
      client.pause();
      client.setTimeout(0);
      client.off('timeout', headTimedOut);
      if (end === -1 || end > this.#limits.maxHeadBytes) {
        this.#finish(this.#record({ kind: 'unknown', host: null, port: null, address: null, decision: 'refused', reason: 'bad_request' }));
        return answer(client, 431, 'bad_request', 'toolgate: the request head is too large');
      }
      void this.#handle(client, parseRequestHead(buf.subarray(0, end)), buf.subarray(end));
    };
    client.on('data', onData);
  }

  async #handle(client: Socket, head: RequestHead | { kind: 'bad'; why: string }, rest: Buffer): Promise<void> {
    if (head.kind === 'bad') {
      this.#finish(this.#record({ kind: 'unknown', host: null, port: null, address: null, decision: 'refused', reason: 'bad_request' }));
      return answer(client, 400, 'bad_request', `toolgate: ${head.why}`);
    }
    const kind = head.kind;
    // CONNECT names only an authority; its scheme matters to nothing but the default port, which CONNECT always gives.
    const url = kind === 'connect' ? `https://${head.authority}/` : head.target;
    let dest: AuthorizedDestination;
    try {
      dest = await authorizeDestination(url, { schemes: kind === 'connect' ? WEB_SCHEMES : { http: 80 }, grant: this.#o.grant, resolver: this.#o.resolver, ...(this.#o.signal ? { signal: this.#o.signal } : {}) });
    } catch (e) {
      if (this.#closed) return void client.destroy();
      const data = ToolgateError.isInstance(e) && e.code === 'destination_refused' ? (e.data as { host: string | null; port: number | null; reason: string }) : null;
      const asked = kind === 'connect' ? head.authority : head.target;
      const rec = this.#record({ kind, host: data?.host ?? asked.slice(0, 256), port: data?.port ?? null, address: null, decision: 'refused', reason: data?.reason ?? 'unauthorized' });
      this.#finish(rec);
      return answer(client, 403, rec.reason ?? 'refused', `toolgate: ${(e as Error).message}`);
    }
    if (this.#closed || client.destroyed) return void client.destroy();
    const rec = this.#record({ kind, host: dest.host, port: dest.port, address: dest.connectTo.address, decision: 'allowed', reason: null });
    const upstream = connectPinned(dest);
    this.#track(upstream);
    const connectTimedOut = (): void => void upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' }));
    upstream.setTimeout(this.#limits.connectTimeoutMs, connectTimedOut);
    let connected = false;
    upstream.once('error', (e: NodeJS.ErrnoException) => {
      if (connected) return void client.destroy();
      rec.decision = 'failed';
      rec.reason = `connect_failed:${e.code ?? e.message}`;
      rec.address = dest.connectTo.address;
      this.#totals.allowed -= 1;
      this.#totals.failed += 1;
      this.#finish(rec);
      answer(client, 502, 'connect_failed', `toolgate: could not connect to ${dest.connectTo.address}:${dest.port}: ${e.code ?? e.message}`);
    });
    upstream.once('connect', () => {
      connected = true;
      upstream.off('timeout', connectTimedOut);
      if (this.#closed) return void upstream.destroy();
      const first = kind === 'connect' ? rest : Buffer.concat([upstreamHead(head.method, new URL(dest.url), head.headers), rest]);
      if (kind === 'connect') client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      this.#splice(client, upstream, first, rec);
    });
  }

  /** Both directions, counted, closed together, ended when idle. */
  #splice(client: Socket, upstream: Socket, first: Buffer, rec: Mutable<ProxyConnection>): void {
    const count = (dir: 'bytes_up' | 'bytes_down', n: number): void => {
      rec[dir] += n;
      this.#totals[dir] += n;
    };
    if (first.length > 0) {
      count('bytes_up', first.length);
      upstream.write(first);
    }
    const idle = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.setTimeout(this.#limits.idleMs, idle);
    upstream.setTimeout(this.#limits.idleMs, idle);
    client.on('data', (d: Buffer) => count('bytes_up', d.length));
    upstream.on('data', (d: Buffer) => count('bytes_down', d.length));
    client.pipe(upstream);
    upstream.pipe(client);
    // The server's end of the answer passes to the client (pipe ends it after the buffered bytes);
    // a client gone has nobody to deliver to, so the upstream goes at once. Both closed: recorded.
    let closedSides = 0;
    const onClose = (): void => {
      closedSides += 1;
      if (closedSides === 2) this.#finish(rec);
    };
    client.once('close', () => {
      upstream.destroy();
      onClose();
    });
    upstream.once('close', () => {
      if (!client.destroyed) client.end();
      onClose();
    });
    client.resume();
  }
}

const ANSWERED_CLOSE_MS = 5_000;

/** A short answer from the proxy itself; the refusal reason also in a header a script can read. */
function answer(client: Socket, status: number, reason: string, message: string): void {
  const text = { 400: 'Bad Request', 403: 'Forbidden', 431: 'Request Header Fields Too Large', 502: 'Bad Gateway', 503: 'Service Unavailable' }[status] ?? 'Error';
  const body = Buffer.from(`${message}\n`, 'utf8');
  const safeReason = reason.replace(/[^\x21-\x7e]/g, '_').slice(0, 128);
  // Whatever else the client sends is read and dropped, so its end arrives and the socket closes;
  // a client that never closes its side is ended after a few seconds.
  client.resume();
  client.setTimeout(ANSWERED_CLOSE_MS, () => client.destroy());
  client.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\nX-Toolgate-Refusal: ${safeReason}\r\n\r\n${body.toString('utf8')}`);
}
