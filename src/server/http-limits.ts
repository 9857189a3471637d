// The bounds that keep one HTTP client from blocking or evicting the others (docs/mcp.md,
// "HTTP limits"). Defaults are chosen here, in one place; the connection cap is derived from the
// process's open-file limit so that a flood of sockets cannot take the descriptors the runtime
// itself needs (SQLite, artifacts, sandbox pipes).
import { readFileSync } from 'node:fs';

export interface HttpLimits {
  /** Connections held at once; beyond it the oldest idle one is closed, or the new one refused. */
  readonly maxConnections: number;
  /** A connection with no request in flight (just opened, nothing sent yet) closes after this long silent. */
  readonly connectionIdleMs: number;
  /** The request line and headers must have arrived this long after the connection opened or the previous request ended. */
  readonly headersTimeoutMs: number;
  /** The whole request (headers and body) must have arrived within this; the response may take longer. */
  readonly requestTimeoutMs: number;
  /** A kept-alive connection waits this long for its next request. */
  readonly keepAliveTimeoutMs: number;
  /** 2025-era sessions open at once; beyond it a new one is refused (503), an open one is never closed for it. */
  readonly maxSessions: number;
  /** A 2025-era session with no request in flight for this long is closed. */
  readonly sessionIdleMs: number;
  /** Largest request body read. */
  readonly maxRequestBodyBytes: number;
}

/** Descriptors always left to the runtime beside the connections. */
export const DESCRIPTOR_HEADROOM = 256;
/** The connection cap when the open-file limit is unknown (not Linux). */
const FALLBACK_MAX_CONNECTIONS = 512;

const FIXED_DEFAULTS = {
  connectionIdleMs: 5_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxSessions: 64,
  sessionIdleMs: 30 * 60_000,
  maxRequestBodyBytes: 4 * 1024 * 1024,
} as const;

/** The soft RLIMIT_NOFILE of this process (Node raises it to the hard limit at start), if known. */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === undefined || !/^\d+$/.test(soft) ? undefined : Number(soft);
  } catch {
    return undefined;
  }
}

/** Half the descriptors, at most 1024: the other half stays with the runtime. */
export function defaultMaxConnections(nofile: number | undefined): number {
  if (nofile === undefined) return FALLBACK_MAX_CONNECTIONS;
  return Math.max(1, Math.min(1024, Math.floor(nofile / 2)));
}

/**
 * The limits in force: the given ones over the defaults. Throws a RangeError for a value that
 * cannot hold (a connection cap that leaves less than DESCRIPTOR_HEADROOM descriptors, a headers
 * timeout longer than the request timeout, a value that is not a positive whole number).
 */
export function resolveHttpLimits(given: Partial<HttpLimits>, nofile: number | undefined = openFileLimit()): HttpLimits {
  const limits: HttpLimits = { ...FIXED_DEFAULTS, maxConnections: defaultMaxConnections(nofile), ...definedOnly(given) };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || (value as number) < 1) throw new RangeError(`${name} must be a positive whole number (got ${String(value)})`);
  }
  if (nofile !== undefined && limits.maxConnections > nofile - DESCRIPTOR_HEADROOM) {
    throw new RangeError(
      `maxConnections ${limits.maxConnections} leaves too few descriptors: the open-file limit is ${nofile}, ` +
        `at most ${Math.max(0, nofile - DESCRIPTOR_HEADROOM)} may go to connections`,
    );
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new RangeError(`headersTimeoutMs ${limits.headersTimeoutMs} is longer than requestTimeoutMs ${limits.requestTimeoutMs}`);
  }
  return limits;
}

/** Only the limits' own keys, and only those given: `given` may be a larger options object. */
function definedOnly(given: Partial<HttpLimits>): Partial<HttpLimits> {
  const names = ['maxConnections', ...Object.keys(FIXED_DEFAULTS)] as const;
  return Object.fromEntries(names.flatMap((n) => (given[n as keyof HttpLimits] === undefined ? [] : [[n, given[n as keyof HttpLimits]]])));
}
