// After a lost answer or a crash between send and receipt: ask the provider, by the query the
// destination declares, whether the effect with this Idempotency-Key arrived. Never a second send.
import type { ReconcileContext, ReconcileVerdict } from '../../registry/index.js';
import { WEB_SCHEMES, classifyAddress, normalizeUrl, type AuthorizedDestination } from '../../resources/index.js';
import { destinationFor, type ConfiguredDestination } from './config.js';
import { exchange } from './exchange.js';
import { REQUEST_ID_HEADERS } from './headers.js';

/** What execute recorded at markSent (no header values, no body). */
interface HttpIntent {
  readonly method: string;
  readonly url: string;
  readonly address: string;
  readonly port: number;
  readonly servername: string | null;
  readonly idempotency_key: string | null;
  readonly reconcile_url: string | null;
}

function intentOf(raw: unknown): HttpIntent | null {
  if (raw === null || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (typeof r.method !== 'string' || typeof r.url !== 'string' || typeof r.address !== 'string' || typeof r.port !== 'number') return null;
  return {
    method: r.method,
    url: r.url,
    address: r.address,
    port: r.port,
    servername: typeof r.servername === 'string' ? r.servername : null,
    idempotency_key: typeof r.idempotency_key === 'string' ? r.idempotency_key : null,
    reconcile_url: typeof r.reconcile_url === 'string' ? r.reconcile_url : null,
  };
}

/**
 * The reconcile query goes to the origin and the address the effect went to, pinned: no new
 * lookup (the address was authorized when the effect was sent), no other origin.
 */
function queryDestination(intent: HttpIntent, queryUrl: string): AuthorizedDestination | string {
  const sent = normalizeUrl(intent.url, WEB_SCHEMES);
  const query = normalizeUrl(queryUrl, WEB_SCHEMES);
  if (query.scheme !== sent.scheme || query.host !== sent.host || query.port !== sent.port) return `the reconcile query ${query.url} is not on the origin of ${sent.url}`;
  const address = classifyAddress(intent.address);
  return { ...query, addresses: [address], connectTo: address, servername: intent.servername };
}

export async function reconcileHttpRequest(ctx: ReconcileContext, destinations: readonly ConfiguredDestination[]): Promise<ReconcileVerdict> {
  const intent = intentOf(ctx.intent);
  if (intent === null) return { settled: 'unknown', reason: 'no intent was recorded for this request' };
  // A read changes nothing at the provider: running it again is the answer.
  if (intent.method === 'GET' || intent.method === 'HEAD') return { settled: 'released', evidence: { method: intent.method, url: intent.url, reason: 'a read' } };
  if (intent.reconcile_url === null) return { settled: 'unknown', reason: `the destination of ${intent.url} declares no reconcile query (connectors.http.destinations[].reconcile)` };
  const dest = queryDestination(intent, intent.reconcile_url);
  if (typeof dest === 'string') return { settled: 'unknown', reason: dest };
  const hostForGlob = dest.hostKind === 'ipv6' ? `[${dest.host}]` : dest.host;
  const configured = destinationFor(destinations, hostForGlob, dest.port);
  const declared = configured?.config.reconcile;
  if (!configured || !declared) return { settled: 'unknown', reason: `no configured destination declares a reconcile query for ${dest.url} any more` };
  const ex = await exchange(
    { method: 'GET', destination: dest, headers: Object.fromEntries(configured.secrets), body: null },
    { signal: AbortSignal.timeout(15_000), beforeSend: async () => {}, keepBytes: 64 * 1024, maxBytes: 64 * 1024 },
  );
  if (ex.kind !== 'answered') return { settled: 'unknown', reason: `the reconcile query ${dest.url} got no answer: ${ex.error.code ?? ex.error.message}` };
  const a = ex.answer;
  const requestIdHeader = REQUEST_ID_HEADERS.find((h) => a.headers[h] !== undefined);
  const found = {
    query: dest.url,
    address: dest.connectTo.address,
    status: a.status,
    request_id: requestIdHeader === undefined ? null : String(a.headers[requestIdHeader]),
    body_sha256: a.sha256,
    body_bytes: a.bytes,
  };
  const evidence = { method: intent.method, url: intent.url, address: intent.address, idempotency_key: intent.idempotency_key, reconcile: found };
  if (declared.completed.includes(a.status)) {
    return { settled: 'completed', evidence, result: { method: intent.method, url: intent.url, idempotency_key: intent.idempotency_key, reconciled: found, body: a.kept.toString('utf8') } };
  }
  if (declared.not_sent.includes(a.status)) return { settled: 'released', evidence };
  return { settled: 'unknown', reason: `the reconcile query ${dest.url} answered ${a.status}, which the destination declares neither completed nor not_sent` };
}
