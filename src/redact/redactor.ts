import { jsonPointer, type RedactionNote } from '../protocol/index.js';
import { mayHoldSecret, SECRET_PATTERNS } from './patterns.js';

export interface RedactionInput {
  /** JSON pointers whose values are always replaced. */
  readonly fields: readonly string[];
  readonly patterns: boolean;
  /** Exact values injected into the call (secret env values, tokens) to remove anywhere. */
  readonly secrets: readonly string[];
}

export const REDACTED = '[REDACTED]';
/** Secret values shorter than this are not searched for: they would redact ordinary text. */
export const MIN_SECRET_LENGTH = 6;

/**
 * Returns a copy of `value` with secrets replaced, and a note for each place. Runs before
 * anything is stored, logged or returned.
 */
export function redact(value: unknown, input: RedactionInput, root = ''): { value: unknown; notes: RedactionNote[] } {
  const notes: RedactionNote[] = [];
  const secrets = input.secrets.filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  const fields = new Set(input.fields.map((f) => root + f));
  const visit = (v: unknown, path: PropertyKey[]): unknown => {
    const pointer = root + jsonPointer(path);
    if (fields.has(pointer) && v !== null && v !== undefined) {
      notes.push({ pointer, kind: 'field', rule: 'field', count: 1 });
      return REDACTED;
    }
    if (typeof v === 'string') return redactString(v, pointer, secrets, input.patterns, notes);
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const r = visit(v[i], [...path, i]);
        if (r !== v[i]) (out ??= [...v])[i] = r;
      }
      return out ?? v;
    }
    if (v !== null && typeof v === 'object') {
      let out: Record<string, unknown> | undefined;
      for (const [k, child] of Object.entries(v)) {
        const r = visit(child, [...path, k]);
        if (r !== child) (out ??= { ...(v as Record<string, unknown>) })[k] = r;
      }
      return out ?? v;
    }
    return v;
  };
  return { value: visit(value, []), notes };
}

export function redactString(s: string, pointer: string, secrets: readonly string[], patterns: boolean, notes: RedactionNote[]): string {
  let out = s;
  for (const secret of secrets) {
    if (!out.includes(secret)) continue;
    const parts = out.split(secret);
    notes.push({ pointer, kind: 'secret_value', rule: 'injected-secret', count: parts.length - 1 });
    out = parts.join(REDACTED);
  }
  if (patterns && mayHoldSecret(out)) {
    for (const p of SECRET_PATTERNS) {
      let count = 0;
      out = out.replace(p.re, () => {
        count++;
        return `[REDACTED:${p.id}]`;
      });
      if (count > 0) notes.push({ pointer, kind: 'pattern', rule: p.id, count });
    }
  }
  return out;
}
