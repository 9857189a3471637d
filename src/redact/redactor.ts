import { escapePointerToken, type RedactionNote } from '../protocol/index.js';
import { anyHint, applySpans, CLEAN_MAX_CHARS, findSecrets, HINT_SEPARATOR, MIN_MATCH_CHARS, REDACTED, usableSecrets, type SecretSpan } from './detect.js';

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

/** Containers with fewer entries are walked string by string (most strings are in findSecrets' clean cache). */
const JOINED_SCAN_MIN_ENTRIES = 64;

/** Collects the short strings of `value` (values, and keys long enough to hold a secret); returns whether it holds a long one. */
function shortStrings(value: unknown, out: string[]): boolean {
  if (typeof value === 'string') {
    if (value.length > CLEAN_MAX_CHARS) return true;
    out.push(value);
    return false;
  }
  let long = false;
  if (Array.isArray(value)) {
    for (const v of value) long = shortStrings(v, out) || long;
  } else if (value !== null && typeof value === 'object') {
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      if (k.length > CLEAN_MAX_CHARS) long = true;
      else if (k.length >= MIN_MATCH_CHARS) out.push(k);
      long = shortStrings((value as Record<string, unknown>)[k], out) || long;
    }
  }
  return long;
}

/**
 * Whether nothing in `value` can be changed by redaction: it holds no long string, and its short
 * strings are free of secrets, found with one scan of them all joined by a character no hint
 * and no injected value holds (a hint or a value found there lies within one string, and a string
 * with neither has no span: findSecrets). A result of thousands of paths (a search's counts, a
 * listing) was walked and scanned string by string: 9–19 ms for 7,300 paths not yet in the clean
 * cache, 2.8–4.5 ms so. Asked only for a container of many entries, so that a small receipt pays
 * nothing.
 */
function untouchable(value: unknown, secrets: readonly string[], patterns: boolean): boolean {
  if (secrets.some((s) => s.includes(HINT_SEPARATOR))) return false;
  const strings: string[] = [];
  if (shortStrings(value, strings)) return false;
  const joined = strings.join(HINT_SEPARATOR);
  if (secrets.some((s) => joined.includes(s))) return false;
  return !patterns || !anyHint(joined);
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
  /** A container of many entries that no field rule or window reaches into and nothing in it can change: kept as it is, unwalked. */
  const keep = (v: object, pointer: string, entries: number): boolean => {
    if (entries < JOINED_SCAN_MIN_ENTRIES) return false;
    const below = `${pointer}/`;
    for (const f of fields) if (f.startsWith(below)) return false;
    for (const w of windows.keys()) if (w.startsWith(below)) return false;
    return untouchable(v, secrets, input.patterns);
  };
  // The pointer is built as the walk descends (one concatenation a level), not re-joined per node.
  const visit = (v: unknown, pointer: string): unknown => {
    if (fields.size > 0 && fields.has(pointer) && v !== null && v !== undefined) {
      notes.push({ pointer, kind: 'field', rule: 'field', count: 1 });
      return REDACTED;
    }
    if (typeof v === 'string') return text(v, pointer);
    if (Array.isArray(v)) {
      if (keep(v, pointer, v.length)) return v;
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const r = visit(v[i], `${pointer}/${i}`);
        if (r !== v[i]) (out ??= [...v])[i] = r;
      }
      return out ?? v;
    }
    if (v !== null && typeof v === 'object') {
      if (keep(v, pointer, Object.keys(v).length)) return v;
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
