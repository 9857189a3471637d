import { createHash } from 'node:crypto';

/**
 * Refusals repeat what the caller sent (a version, a tool name, a JSON pointer) so that the
 * caller can see its mistake; repeated whole, a 10 MB value made a 20 MB receipt. A caller's
 * value is echoed whole when short, else as a prefix plus the size and digest of all of it:
 * enough to recognize it, bounded whatever was sent.
 */
export const ECHO_MAX_CHARS = 256;
/** Bound for any string of a refusal's body (message and data), whoever built it. */
export const ERROR_STRING_MAX_CHARS = 4096;
/** Faults listed in one refusal; the rest are counted. */
export const MAX_FAULTS = 50;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string with lone UTF-16 surrogates replaced: a receipt must have a canonical JSON form. */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\uFFFD');
}

/** `s` whole when at most `max` characters, else its first `max` and `… (N bytes, sha256:…)`. */
export function echoString(s: string, max = ECHO_MAX_CHARS): string {
  if (s.length <= max) return wellFormed(s);
  let cut = max;
  const last = s.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--; // never split a surrogate pair
  const bytes = Buffer.byteLength(s);
  return `${wellFormed(s.slice(0, cut))}… (${bytes} bytes, sha256:${createHash('sha256').update(s).digest('hex')})`;
}

/** Any JSON value from the caller, as bounded text (a string echoes as itself). */
export function echoValue(v: unknown, max = ECHO_MAX_CHARS): string {
  if (typeof v === 'string') return echoString(JSON.stringify(v), max);
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return echoString(text, max);
}

/** A copy of a JSON value whose every string (and key) is bounded: the backstop for refusal bodies. */
export function boundStrings<T>(value: T, max = ERROR_STRING_MAX_CHARS): T {
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return v.length > max ? echoString(v, max) : v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      v.forEach((x, i) => {
        const r = visit(x);
        if (r !== x) (out ??= [...v])[i] = r;
      });
      return out ?? v;
    }
    if (v !== null && typeof v === 'object') {
      let changed = false;
      const entries = Object.entries(v).map(([k, x]): [string, unknown] => {
        const key = k.length > max ? echoString(k, max) : k;
        const r = visit(x);
        if (key !== k || r !== x) changed = true;
        return [key, r];
      });
      return changed ? Object.fromEntries(entries) : v;
    }
    return v;
  };
  return visit(value) as T;
}
