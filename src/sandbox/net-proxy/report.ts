import { z } from 'zod';

/** One connection through the proxy, as the receipt records it. */
export const proxyConnectionSchema = z.strictObject({
  /** `connect`: an HTTPS (or any TCP) tunnel; `http`: one absolute-form plain HTTP request. */
  kind: z.enum(['connect', 'http', 'unknown']),
  /** The host as normalized (A-label, dotted quad, bare IPv6), or as asked when it could not be. */
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  /** The address connected to (the authorized one); null when refused. */
  address: z.string().nullable(),
  decision: z.enum(['allowed', 'refused', 'failed']),
  /** Why refused or failed: a `destination_refused` reason, or the proxy's own (bad_request, connect_failed, …). */
  reason: z.string().nullable(),
  bytes_up: z.number().int(),
  bytes_down: z.number().int(),
  /** Since the proxy started. */
  started_ms: z.number().int(),
  duration_ms: z.number().int(),
});
export type ProxyConnection = z.infer<typeof proxyConnectionSchema>;

/** What a run with `network: allowlist` went through: every connection (up to `recorded`) and totals. */
export const networkReportSchema = z.strictObject({
  connections: z.array(proxyConnectionSchema),
  /** Connections past the recorded ones (still counted in the totals). */
  omitted: z.number().int(),
  allowed: z.number().int(),
  refused: z.number().int(),
  failed: z.number().int(),
  bytes_up: z.number().int(),
  bytes_down: z.number().int(),
});
export type NetworkReport = z.infer<typeof networkReportSchema>;

/** Bounds of one proxy (one call's). */
export interface NetProxyLimits {
  /** Connections accepted over the call; past it each is answered 503 and recorded refused. */
  readonly maxConnections: number;
  /** Open at once; past it 503. */
  readonly maxConcurrent: number;
  /** A connection with no byte either way for this long is closed. */
  readonly idleMs: number;
  /** The request head must arrive within this. */
  readonly headTimeoutMs: number;
  readonly maxHeadBytes: number;
  readonly connectTimeoutMs: number;
  /** Connections listed one by one in the report; the rest are counted. */
  readonly recorded: number;
}

export const DEFAULT_PROXY_LIMITS: NetProxyLimits = {
  maxConnections: 4096,
  maxConcurrent: 64,
  idleMs: 60_000,
  headTimeoutMs: 10_000,
  maxHeadBytes: 16 * 1024,
  connectTimeoutMs: 15_000,
  recorded: 256,
};
