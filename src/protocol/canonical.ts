import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import canonicalizeImpl from 'canonicalize';

/** A lowercase hex sha256, prefixed with its algorithm: `sha256:…`. */
export type Digest = string & { readonly __brand: 'Digest' };

const canonicalize = canonicalizeImpl as unknown as (value: unknown) => string | undefined;

/** RFC 8785 canonical JSON. Throws on values JSON cannot carry (undefined at top, cycles). */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Digest of a JSON value's canonical form. */
export function digestOf(value: unknown): Digest {
  return `sha256:${sha256Hex(canonicalJson(value))}` as Digest;
}

export function hmacSha256(key: Uint8Array, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
