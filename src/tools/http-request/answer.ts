import type { AuthorizedDestination } from '../../resources/index.js';
import type { ConfiguredDestination } from './config.js';
import type { Answer } from './exchange.js';
import { DROPPED_RESPONSE_HEADERS, REQUEST_ID_HEADERS } from './headers.js';
import type { HttpRequestResult } from './schema.js';

/** The host as the grant's host globs (and the configuration's) see it: a name, a dotted quad, or `[v6]`. */
export function grantHost(d: AuthorizedDestination): string {
  return d.hostKind === 'ipv6' ? `[${d.host}]` : d.host;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body cut at `max` bytes, as text when it is UTF-8 (a cut inside a character backs off to its start). */
function inlineBody(kept: Buffer, max: number): { body: string; body_encoding: 'utf-8' | 'base64' } {
  const cut = kept.subarray(0, max);
  for (let back = 0; back < 4 && back <= cut.length; back++) {
    try {
      return { body: utf8.decode(cut.subarray(0, cut.length - back)), body_encoding: 'utf-8' };
    } catch {
      if (cut.length === kept.length) break; // not cut: the text itself is not UTF-8
    }
  }
  return { body: cut.toString('base64'), body_encoding: 'base64' };
}

function headerText(v: string | string[] | undefined): string | null {
  if (v === undefined) return null;
  return Array.isArray(v) ? v.join(', ') : v;
}

function atPointer(value: unknown, pointer: string): unknown {
  let at = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A 202's operation: the declared JSON field, else the declared header (default Location). */
function operationIdOf(answer: Answer, configured: ConfiguredDestination | null): string | null {
  if (answer.status !== 202) return null;
  const declared = configured?.config.operation_id;
  if (declared?.json_pointer !== undefined) {
    try {
      const v = atPointer(JSON.parse(answer.kept.toString('utf8')), declared.json_pointer);
      if (typeof v === 'string' || typeof v === 'number') return String(v);
    } catch {
      // not JSON: fall back to the header
    }
  }
  return headerText(answer.headers[(declared?.header ?? 'location').toLowerCase()]);
}

export function answerFields(
  answer: Answer,
  maxInline: number,
  configured: ConfiguredDestination | null,
): Pick<HttpRequestResult, 'status' | 'status_text' | 'headers' | 'request_id' | 'operation_id' | 'body' | 'body_encoding' | 'body_bytes' | 'body_sha256' | 'body_complete'> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer.headers)) {
    const text = headerText(v);
    if (text !== null && !DROPPED_RESPONSE_HEADERS.has(k)) headers[k] = text;
  }
  const requestIdHeader = REQUEST_ID_HEADERS.find((h) => headers[h] !== undefined);
  return {
    status: answer.status,
    status_text: answer.statusText,
    headers,
    request_id: requestIdHeader === undefined ? null : (headers[requestIdHeader] ?? null),
    operation_id: operationIdOf(answer, configured),
    ...inlineBody(answer.kept, maxInline),
    body_bytes: answer.bytes,
    body_sha256: answer.sha256,
    body_complete: answer.complete,
  };
}
