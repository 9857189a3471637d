// The 2025-era sessions of `serve --http`. A session is never closed to make room for another:
// at the cap a new one is refused (503, JSON-RPC error with data.code `limit_exceeded`), and a
// slot frees when a client ends its session (DELETE) or a session stays unused past the idle
// timeout. A session with a request in flight (a running call, an open SSE stream) is in use and
// never expires.
import type { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { ErrorCode } from '../protocol/index.js';

export interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
}

interface Slot {
  readonly session: Session;
  lastUsed: number;
  inFlight: number;
}

/** Why an initialize was refused: every slot holds a session that is in use or not idle long enough. */
export interface SessionLimit {
  readonly max: number;
  /** When the first idle session will expire, if any is idle now. */
  readonly retryAfterMs?: number;
}

export interface SessionTableOptions {
  readonly maxSessions: number;
  readonly sessionIdleMs: number;
  readonly onError: (error: Error) => void;
  readonly now?: () => number;
}

export class SessionTable {
  private readonly slots = new Map<string, Slot>();
  /** Initializes admitted but whose session id is not known yet: they hold a slot too. */
  private opening = 0;
  private readonly now: () => number;

  constructor(private readonly opts: SessionTableOptions) {
    this.now = opts.now ?? Date.now;
  }

  get size(): number {
    return this.slots.size;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /**
   * Marks a request of session `id` in flight; the returned release ends it (call it when the
   * response closes). Undefined when there is no such session.
   */
  use(id: string): { readonly session: Session; release(): void } | undefined {
    const slot = this.slots.get(id);
    if (!slot) return undefined;
    slot.inFlight++;
    slot.lastUsed = this.now();
    let released = false;
    return {
      session: slot.session,
      release: () => {
        if (released) return;
        released = true;
        slot.inFlight--;
        slot.lastUsed = this.now();
      },
    };
  }

  /**
   * Holds a slot for a session about to open, after closing the sessions past their idle time.
   * Either the reservation (`add` the session under its id, then `settle` either way) or the limit.
   */
  reserve(): { readonly reservation: Reservation } | { readonly limit: SessionLimit } {
    this.expireIdle();
    if (this.slots.size + this.opening >= this.opts.maxSessions) return { limit: this.limit() };
    this.opening++;
    let settled = false;
    return {
      reservation: {
        add: (id, session) => {
          this.slots.set(id, { session, lastUsed: this.now(), inFlight: 0 });
        },
        settle: () => {
          if (settled) return;
          settled = true;
          this.opening--;
        },
      },
    };
  }

  /** Forgets a session its transport closed (the client's DELETE). */
  forget(id: string): void {
    this.slots.delete(id);
  }

  /** Closes every session unused for longer than the idle timeout and not in use. */
  expireIdle(): void {
    const now = this.now();
    for (const [id, slot] of this.slots) {
      if (slot.inFlight === 0 && now - slot.lastUsed > this.opts.sessionIdleMs) void this.close(id);
    }
  }

  async close(id: string): Promise<void> {
    const slot = this.slots.get(id);
    if (!slot) return;
    this.slots.delete(id);
    await slot.session.server.close().catch(this.opts.onError);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.slots.keys()].map((id) => this.close(id)));
  }

  private limit(): SessionLimit {
    const now = this.now();
    let soonest: number | undefined;
    for (const slot of this.slots.values()) {
      if (slot.inFlight > 0) continue;
      const left = Math.max(0, slot.lastUsed + this.opts.sessionIdleMs - now);
      soonest = soonest === undefined ? left : Math.min(soonest, left);
    }
    return { max: this.opts.maxSessions, ...(soonest === undefined ? {} : { retryAfterMs: soonest + 1 }) };
  }
}

export interface Reservation {
  add(id: string, session: Session): void;
  settle(): void;
}

/** The refusal of an initialize at the cap: HTTP 503 and a JSON-RPC error a client can read. */
export function sessionLimitResponse(limit: SessionLimit, requestId: string | number | null): Response {
  const code: ErrorCode = 'limit_exceeded';
  const message =
    `session limit reached: ${limit.max} sessions are open; ` +
    'a slot frees when a client ends its session or a session stays unused past the idle timeout';
  const retry = limit.retryAfterMs;
  return new Response(
    JSON.stringify({
      jsonrpc: '2.0',
      id: requestId,
      error: { code: -32000, message, data: { code, limit: 'sessions', max: limit.max, ...(retry === undefined ? {} : { retry_after_ms: retry }) } },
    }),
    {
      status: 503,
      headers: { 'content-type': 'application/json', ...(retry === undefined ? {} : { 'retry-after': String(Math.ceil(retry / 1000)) }) },
    },
  );
}
