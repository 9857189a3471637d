// A real HTTP provider on a loopback address the test picks: it keeps effects by Idempotency-Key
// (a second request with a key already seen is not a second effect, but it is counted), answers
// a lookup by key, and can misbehave on purpose (drop the connection after taking the effect,
// hold the answer forever, answer 202, redirect).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Behaviour = 'answer' | 'drop' | 'hold' | 'accept_async';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export class Provider {
  readonly requests: SeenRequest[] = [];
  /** Idempotency-Key → the effect's id: what the provider did, once per key. */
  readonly effects = new Map<string, string>();
  /** Writes received (including duplicates by key): the "never a blind second POST" count. */
  writes = 0;
  behaviour: Behaviour = 'answer';
  /** Where GET /redirect sends the client. */
  redirectTo = '/hello';
  readonly #server: http.Server;
  readonly #sockets = new Set<Socket>();
  readonly #written: ((r: SeenRequest) => void)[] = [];

  private constructor(server: http.Server) {
    this.#server = server;
    server.on('connection', (s: Socket) => {
      this.#sockets.add(s);
      s.once('close', () => this.#sockets.delete(s));
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.#handle({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }, res));
    });
  }

  static async start(address: string): Promise<Provider> {
    const p = new Provider(http.createServer());
    await new Promise<void>((resolve, reject) => {
      p.#server.once('error', reject);
      p.#server.listen(0, address, () => resolve());
    });
    return p;
  }

  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Resolves at the next write the provider takes (bounded by the caller's own timeout). */
  nextWrite(): Promise<SeenRequest> {
    return new Promise((resolve) => this.#written.push(resolve));
  }

  #handle(r: SeenRequest, res: http.ServerResponse): void {
    this.requests.push(r);
    const url = new URL(r.url, 'http://provider');
    if (url.pathname === '/redirect') {
      res.writeHead(302, { location: this.redirectTo }).end();
      return;
    }
    if (r.method === 'GET' && url.pathname === '/effects') {
      const id = this.effects.get(url.searchParams.get('idempotency_key') ?? '');
      if (id === undefined) res.writeHead(404).end('{"found":false}');
      else res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': `lookup-${id}` }).end(JSON.stringify({ found: true, id }));
      return;
    }
    if (r.method === 'GET' || r.method === 'HEAD') {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-request-id': 'req-get-1', 'set-cookie': 'session=abc' }).end(`hello ${url.pathname}\n`);
      return;
    }
    this.writes++;
    const key = String(r.headers['idempotency-key'] ?? '');
    let id = this.effects.get(key);
    if (id === undefined) {
      id = `op-${this.effects.size + 1}`;
      this.effects.set(key, id);
    }
    for (const w of this.#written.splice(0)) w(r);
    switch (this.behaviour) {
      case 'answer':
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': `req-${id}` }).end(JSON.stringify({ id, echo_auth: r.headers.authorization ?? null }));
        return;
      case 'accept_async':
        res.writeHead(202, { location: `/operations/${id}`, 'x-request-id': `req-${id}` }).end(JSON.stringify({ operation: id }));
        return;
      case 'drop':
        // The effect is taken; the answer never leaves.
        res.socket?.destroy();
        return;
      case 'hold':
        return;
    }
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
