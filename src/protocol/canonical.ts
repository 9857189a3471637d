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

/** Arrays this long may be written by JSON.stringify at once (rowsJson). */
const ROWS_AT_LEAST = 16;
/** Deeper than this, `write` decides (it finds cycles). */
const KEYS_DEPTH = 100;
/** More distinct keys than this, `write` decides: JSON.stringify looks up every listed key in every object. */
const KEYS_MAX = 64;

/**
 * A long array (a search page's matches or counts, a listing) as one native JSON.stringify
 * given every key its elements hold, sorted: each object's members come out in that order,
 * which is the canonical order. About 4x faster than the walk on rows of small records (a
 * 7,000-row count page: 5–6.5 ms → 1.4–1.5 ms); on a receipt's few objects with many keys
 * the list costs more than it saves, hence arrays only. Undefined when `keysOf` finds the
 * array is not one JSON.stringify writes as RFC 8785 does.
 */
function rowsJson(rows: unknown[]): string | undefined {
  const keys = new Set<string>();
  return keysOf(rows, keys, 0) ? JSON.stringify(rows, [...keys].sort()) : undefined;
}

/**
 * Adds the keys of every object in `v` to `keys`; false when JSON.stringify with that list
 * would not write v's canonical JSON, so that the walk decides (it refuses or orders): a
 * non-finite number or a lone surrogate (RFC 8785 refuses them), a toJSON (applied first), a
 * `__proto__` key or an object that is not plain (a listed name is read through the prototype),
 * too deep or too many keys. Everything else JSON.stringify writes as the walk does: members
 * that are undefined, functions or symbols left out, such array elements as null. A wrong true
 * would be a wrong digest: the property tests check both paths against the `canonicalize` package.
 */
function keysOf(v: object, keys: Set<string>, depth: number): boolean {
  if (depth > KEYS_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!plain(v[i], keys, depth)) return false;
    return true;
  }
  // A listed name is read through the prototype: a Map's `size`, a class's getter, a boxed
  // primitive's value would be written where `write` sees no own member.
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (!keys.has(k)) {
      if (k === '__proto__' || !wellFormed(k) || keys.size >= KEYS_MAX) return false;
      keys.add(k);
    }
    if (!plain((v as Record<string, unknown>)[k], keys, depth)) return false;
  }
  return true;
}

function plain(x: unknown, keys: Set<string>, depth: number): boolean {
  switch (typeof x) {
    case 'string':
      return wellFormed(x);
    case 'number':
      return Number.isFinite(x);
    case 'object':
      return x === null || keysOf(x, keys, depth + 1);
    case 'bigint':
      return false;
    case 'boolean':
    case 'undefined': // undefined, functions and symbols: left out (null in an array) by both
    case 'function':
    case 'symbol':
      return true;
  }
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
        const rows = v.length >= ROWS_AT_LEAST ? rowsJson(v) : undefined;
        if (rows !== undefined) {
          seen.delete(v);
          return rows;
        }
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
