import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** A lowercase hex sha256, prefixed with its algorithm: `sha256:…`. */
export type Digest = string & { readonly __brand: 'Digest' };

/** ES2024's String.prototype.isWellFormed (Node >= 20): false exactly when a lone surrogate is present. */
type WellFormed = string & { isWellFormed(): boolean };
const wellFormed = (s: string): boolean => (s as WellFormed).isWellFormed();

/**
 * RFC 8785 canonical JSON: members sorted by UTF-16 code units, strings and numbers as
 * ECMAScript's JSON.stringify writes them, no whitespace. Refuses what RFC 8785 refuses
 * (non-finite numbers, lone surrogates) and what JSON cannot carry (cycles, a bare undefined).
 *
 * Written here rather than taken from the `canonicalize` package because it runs on every
 * call's receipt: that package checks strings for lone surrogates one character at a time,
 * which cost more than the rest of the digest. The package stays as the oracle of a property
 * test (test/protocol/canonical.test.ts) that both give the same bytes.
 */
export function canonicalJson(value: unknown): string {
  const out = write(value, new Set());
  if (out === undefined) throw new TypeError('value has no canonical JSON form');
  return out;
}

function write(v: unknown, seen: Set<object>): string | undefined {
  switch (typeof v) {
    case 'string':
      if (!wellFormed(v)) throw new TypeError('Lone surrogate is not allowed');
      return JSON.stringify(v);
    case 'number':
      if (!Number.isFinite(v)) throw new TypeError(`${v} is not allowed`);
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw new TypeError('BigInt is not allowed');
    case 'object': {
      if (v === null) return 'null';
      if (seen.has(v)) throw new TypeError('Circular reference detected');
      const withJson = v as { toJSON?: () => unknown };
      if (typeof withJson.toJSON === 'function') {
        seen.add(v);
        const r = write(withJson.toJSON(), seen);
        seen.delete(v);
        return r;
      }
      seen.add(v);
      let out: string;
      if (Array.isArray(v)) {
        out = '[';
        for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (write(v[i], seen) ?? 'null');
        out += ']';
      } else {
        const rec = v as Record<string, unknown>;
        const keys = Object.keys(rec).sort();
        out = '{';
        let first = true;
        for (const k of keys) {
          const x = write(rec[k], seen);
          if (x === undefined) continue;
          if (!wellFormed(k)) throw new TypeError('Lone surrogate is not allowed');
          out += (first ? '' : ',') + JSON.stringify(k) + ':' + x;
          first = false;
        }
        out += '}';
      }
      seen.delete(v);
      return out;
    }
  }
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
