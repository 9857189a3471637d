import { escapePointerToken, type RedactionNote } from '../protocol/index.js';
import { applySpans, findSecrets, MIN_MATCH_CHARS, REDACTED, usableSecrets, type SecretSpan } from './detect.js';

/**
 * The text around a string that was cut from a larger whole (a page of a file): a secret that
 * straddles the cut, or a private key whose BEGIN line lies before it, is found in
 * `before + text + after` and its part inside the text is redacted.
 */
export interface TextWindow {
  /** Absolute JSON pointer of the string in the redacted value (e.g. `/result/content`). */
  readonly pointer: string;
  readonly before: string;
  readonly after: string;
}

export interface RedactionInput {
  /** JSON pointers whose values are always replaced. */
  readonly fields: readonly string[];
  readonly patterns: boolean;
  /** Exact values injected into the call (secret env values, tokens) to remove anywhere. */
  readonly secrets: readonly string[];
  readonly windows?: readonly TextWindow[];
}

/** Spans of `text`, found with its window's context and clipped to the text. */
export function spansInWindow(text: string, secrets: readonly string[], patterns: boolean, window?: Pick<TextWindow, 'before' | 'after'>): SecretSpan[] {
  if (!window || (window.before === '' && window.after === '')) return findSecrets(text, secrets, patterns);
  const lo = window.before.length;
  const hi = lo + text.length;
  const out: SecretSpan[] = [];
  for (const s of findSecrets(window.before + text + window.after, secrets, patterns)) {
    if (s.end <= lo || s.start >= hi) continue;
    out.push({ ...s, start: Math.max(s.start, lo) - lo, end: Math.min(s.end, hi) - lo });
  }
  return out;
}

/** `text` redacted; a note per rule that fired is added to `notes`. */
export function redactText(text: string, pointer: string, secrets: readonly string[], patterns: boolean, notes: RedactionNote[], window?: TextWindow): string {
  const spans = spansInWindow(text, secrets, patterns, window);
  if (spans.length === 0) return text;
  const counts = new Map<string, { kind: SecretSpan['kind']; count: number }>();
  for (const s of spans) {
    const c = counts.get(s.rule);
    if (c) c.count++;
    else counts.set(s.rule, { kind: s.kind, count: 1 });
  }
  for (const [rule, { kind, count }] of counts) notes.push({ pointer, kind, rule, count });
  return applySpans(text, spans);
}

/**
 * Returns a copy of `value` with secrets replaced (in strings and in object keys), and a note
 * for each place. Runs before anything is stored, logged or returned.
 */
export function redact(value: unknown, input: RedactionInput, root = ''): { value: unknown; notes: RedactionNote[] } {
  const notes: RedactionNote[] = [];
  const secrets = usableSecrets(input.secrets);
  const fields = new Set(input.fields.map((f) => root + f));
  const windows = new Map((input.windows ?? []).map((w) => [w.pointer, w]));
  const text = (s: string, pointer: string): string => redactText(s, pointer, secrets, input.patterns, notes, windows.get(pointer));
  // The pointer is built as the walk descends (one concatenation a level), not re-joined per node.
  const visit = (v: unknown, pointer: string): unknown => {
    if (fields.size > 0 && fields.has(pointer) && v !== null && v !== undefined) {
      notes.push({ pointer, kind: 'field', rule: 'field', count: 1 });
      return REDACTED;
    }
    if (typeof v === 'string') return text(v, pointer);
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const r = visit(v[i], `${pointer}/${i}`);
        if (r !== v[i]) (out ??= [...v])[i] = r;
      }
      return out ?? v;
    }
    if (v !== null && typeof v === 'object') {
      let out: Record<string, unknown> | undefined;
      for (const [k, child] of Object.entries(v)) {
        const at = `${pointer}/${escapePointerToken(k)}`;
        // A key can be a path (a map of path → result): it is recorded too. Shorter than any secret: kept as it is.
        const key = k.length < MIN_MATCH_CHARS ? k : text(k, `${at}#key`);
        const r = visit(child, at);
        if (key === k && r === child && !out) continue;
        out ??= Object.fromEntries(Object.entries(v).slice(0, Object.keys(v).indexOf(k)));
        out[key] = r;
      }
      return out ?? v;
    }
    return v;
  };
  return { value: visit(value, root), notes };
}
