// One request/response over a connection pinned to an authorized address. The request is held
// until the socket is connected and `beforeSend` (the durable markSent) has resolved: a failure
// before that sent nothing; after it, the provider may have acted.
import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { pinnedRequestOptions, type AuthorizedDestination } from '../../resources/index.js';
import { failpoint } from '../../protocol/index.js';

export interface ExchangeRequest {
  readonly method: string;
  readonly destination: AuthorizedDestination;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | null;
}

export interface Answer {
  readonly status: number;
  readonly statusText: string;
  readonly headers: http.IncomingHttpHeaders;
  /** The body's first `keepBytes` bytes. */
  readonly kept: Buffer;
  /** Bytes received (all of them, kept or not). */
  readonly bytes: number;
  /** sha256 of every byte received. */
  readonly sha256: string;
  /** The body ended normally (false: the connection dropped mid-body, or it passed `maxBytes`). */
  readonly complete: boolean;
}

export type Exchange =
  | { readonly kind: 'answered'; readonly answer: Answer }
  /** Nothing left this machine: the connection never opened (refused, unreachable, TLS failed). */
  | { readonly kind: 'not_sent'; readonly error: NodeJS.ErrnoException }
  /** The request was handed to the socket and no answer came: the provider may have acted. */
  | { readonly kind: 'no_answer'; readonly error: NodeJS.ErrnoException };

export interface ExchangeOptions {
  readonly signal: AbortSignal;
  /** Awaited once the connection is open and before any byte of the request is written. */
  readonly beforeSend: () => Promise<void>;
  readonly keepBytes: number;
  /** Reading stops here (the answer is marked incomplete). */
  readonly maxBytes: number;
}

export function exchange(req: ExchangeRequest, o: ExchangeOptions): Promise<Exchange> {
  const tls = req.destination.scheme === 'https';
  return new Promise<Exchange>((resolve, reject) => {
    let phase: 'connecting' | 'marking' | 'sent' = 'connecting';
    let settled = false;
    const finish = (e: Exchange | Error) => {
      if (settled) return;
      settled = true;
      if (e instanceof Error) reject(e);
      else resolve(e);
    };
    const outgoing = (tls ? https : http).request({
      ...pinnedRequestOptions(req.destination),
      method: req.method,
      headers: { ...req.headers, ...(req.body !== null ? { 'content-length': String(req.body.length) } : {}) },
      signal: o.signal,
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => finish(phase === 'sent' ? { kind: 'no_answer', error } : { kind: 'not_sent', error }));
    outgoing.once('socket', (socket) => {
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        phase = 'marking';
        o.beforeSend().then(
          () => {
            phase = 'sent';
            outgoing.end(req.body ?? undefined);
          },
          (e: unknown) => {
            outgoing.destroy();
            finish(e instanceof Error ? e : new Error(String(e)));
          },
        );
      });
    });
    outgoing.once('response', (res) => {
      failpoint('during_effect'); // the provider took the request and answered; the answer not yet read
      const hash = createHash('sha256');
      const kept: Buffer[] = [];
      let keptBytes = 0;
      let bytes = 0;
      const answer = (complete: boolean): Exchange => ({
        kind: 'answered',
        answer: { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, kept: Buffer.concat(kept), bytes, sha256: hash.digest('hex'), complete },
      });
      const done = (complete: boolean) => {
        if (!settled) finish(answer(complete));
      };
      res.on('data', (chunk: Buffer) => {
        if (settled) return;
        bytes += chunk.length;
        hash.update(chunk);
        if (keptBytes < o.keepBytes) {
          const part = chunk.subarray(0, o.keepBytes - keptBytes);
          kept.push(part);
          keptBytes += part.length;
        }
        if (bytes >= o.maxBytes) {
          done(false);
          res.destroy();
        }
      });
      res.once('end', () => done(true));
      // The provider answered (its status is known) but the body was cut: the effect is not in doubt.
      res.once('error', () => done(false));
      res.once('aborted', () => done(false));
    });
  });
}
