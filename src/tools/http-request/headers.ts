// Which request headers the model may set. Refused rather than stripped, so the model sees what
// was not sent and why, instead of a request that silently differs from the one it wrote.
import { ToolgateError } from '../../protocol/index.js';

/** Hop-by-hop (RFC 9110 §7.6.1) and framing: the connection's, set by the connector. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'content-length', 'expect']);
/** `host` would name another virtual host than the destination that was authorized. */
const ROUTING_HEADERS = new Set(['host', 'forwarded', 'x-forwarded-for', 'x-forwarded-host']);
/** Credentials come from configuration at the boundary, never from the model. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization', 'proxy-authenticate']);
/** Derived from the logical effect by the connector: a model-chosen key would defeat reconcile. */
const CONNECTOR_HEADERS = new Set(['idempotency-key']);

export type HeaderRefusal = 'hop_by_hop' | 'routing' | 'credential' | 'connector' | 'configured_secret';

export function headerRefusal(name: string, secretHeaders: ReadonlySet<string>): HeaderRefusal | null {
  const n = name.toLowerCase();
  if (CONNECTION_HEADERS.has(n)) return 'hop_by_hop';
  if (ROUTING_HEADERS.has(n)) return 'routing';
  if (CREDENTIAL_HEADERS.has(n) || n.startsWith('proxy-')) return 'credential';
  if (CONNECTOR_HEADERS.has(n)) return 'connector';
  if (secretHeaders.has(n)) return 'configured_secret';
  return null;
}

/** The model's headers, lowercased, every refused one named in one typed error. */
export function modelHeaders(headers: Readonly<Record<string, string>>, secretHeaders: ReadonlySet<string>): Record<string, string> {
  const faults: { pointer: string; message: string }[] = [];
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const refusal = headerRefusal(name, secretHeaders);
    if (refusal !== null) faults.push({ pointer: `/headers/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: `${name} is set by the connector, not the caller (${refusal})` });
    else out[name.toLowerCase()] = value;
  }
  if (faults.length) throw new ToolgateError('invalid_arguments', `refused request headers: ${faults.map((f) => f.pointer.slice(9)).join(', ')}`, { faults });
  return out;
}

/** Provider request-id headers, in the order they are looked for. */
export const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-amz-request-id', 'x-github-request-id', 'cf-ray', 'x-correlation-id', 'x-trace-id'];

/** Response headers the result leaves out: they carry credentials. */
export const DROPPED_RESPONSE_HEADERS = new Set(['set-cookie', 'set-cookie2', 'www-authenticate', 'proxy-authenticate']);
