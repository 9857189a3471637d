// node:http ↔ web Request/Response, the way the v2 SDK's HTTP entry wants them. The Request's
// signal aborts when the client goes away: that is how a 2026-07-28 client's cancellation (it
// aborts its fetch) reaches the running call.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ToolgateError } from '../protocol/index.js';

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    // Typed like the other HTTP limits (connections, sessions): the server answers 413 with it.
    if (size > limit) throw new ToolgateError('limit_exceeded', `request body over ${limit} bytes`, { limit: 'body_bytes', max: limit });
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

function urlOf(req: IncomingMessage): string {
  return `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
}

/** The request line and headers only: enough to check Host, Origin and credentials before reading a body. */
export function webRequestHead(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(urlOf(req), { method: 'GET', headers });
}

/** The full web Request; its `signal` aborts when the response closes before it finished. */
export async function webRequestOf(req: IncomingMessage, res: ServerResponse, head: Request, bodyLimit: number): Promise<Request> {
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort(new Error('client disconnected'));
  });
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const body = hasBody ? await readBody(req, bodyLimit) : undefined;
  return new Request(urlOf(req), { method, headers: head.headers, signal: abort.signal, ...(body === undefined ? {} : { body }) });
}

/** Streams a web Response into a Node response; stops reading it when the client goes away. */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    const prev = headers[name];
    headers[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  await new Promise<void>((resolve) => {
    res.once('close', () => {
      body.destroy();
      resolve();
    });
    body.once('error', () => res.destroy());
    body.pipe(res);
  });
}
