import { SECRET_RULES, type SecretRule } from './rules.js';

/** Secret values shorter than this are not searched for: they would redact ordinary text. */
export const MIN_SECRET_LENGTH = 6;

/** A half-open range of a text that holds a secret. */
export interface SecretSpan {
  readonly start: number;
  readonly end: number;
  /** A rule id, or `injected-secret` for an exact value the runtime was given. */
  readonly rule: string;
  readonly kind: 'pattern' | 'secret_value';
}

/** Shorter than any secret a rule or an injected value can be: keys, digests' prefixes, flags. */
export const MIN_MATCH_CHARS = 6;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const byLength = (a: string, b: string): number => b.length - a.length;

interface HintIndex {
  /** Every hint, longest first (an alternation takes the first alternative that matches). */
  readonly re: RegExp;
  readonly rules: Map<string, SecretRule[]>;
  /** The hints each hint starts with, itself included. */
  readonly prefixes: Map<string, readonly string[]>;
}

/** The alternation of `hints`, longest first. */
const alternation = (hints: readonly string[]): RegExp => new RegExp([...hints].sort(byLength).map(escape).join('|'), 'g');

/** One native scan finds which rules can match at all; most text holds none of the hints. */
function hintIndex(caseless: boolean): HintIndex {
  const rules = new Map<string, SecretRule[]>();
  for (const r of SECRET_RULES) {
    if ((r.caseless ?? false) !== caseless) continue;
    for (const h of r.hints) {
      const k = caseless ? h.toLowerCase() : h;
      rules.set(k, [...(rules.get(k) ?? []), r]);
    }
  }
  const keys = [...rules.keys()];
  // Caseless hints are matched in a lower-cased copy: a literal alternation without `i` is much faster.
  return { re: alternation(keys), rules, prefixes: new Map(keys.map((k) => [k, keys.filter((p) => k.startsWith(p))])) };
}
const CASED = hintIndex(false);
const CASELESS = hintIndex(true);

/**
 * Whether any rule's hint occurs in `text`: when none does, no rule can match anywhere in it
 * (a rule is tried only where one of its hints occurs).
 */
export function anyHint(text: string): boolean {
  CASED.re.lastIndex = 0;
  if (CASED.re.test(text)) return true;
  CASELESS.re.lastIndex = 0;
  return CASELESS.re.test(text.toLowerCase());
}

/** No hint holds this character, so a hint found in texts joined with it lies within one of them. */
export const HINT_SEPARATOR = '\u0000';
for (const index of [CASED, CASELESS]) {
  for (const hint of index.rules.keys()) if (hint.includes(HINT_SEPARATOR)) throw new Error(`a secret rule's hint holds ${JSON.stringify(HINT_SEPARATOR)}`);
}

/** Up to this length a text is searched for each hint in turn; a longer one in one pass (hintsIn). */
const ONE_PASS_CHARS = 16 * 1024;

/**
 * The hints that occur in `source`. A long text is scanned once for all of them: with a
 * `source.includes` each, a 4 MB lockfile was scanned 59 times (165 ms of the event loop for
 * every fs.read or shell.exec that showed it). A short one is looked at with `includes`, which
 * costs less there than building the alternation of the hints not yet found.
 */
function hintsIn(index: HintIndex, source: string): Set<string> {
  const found = new Set<string>();
  let re = index.re;
  re.lastIndex = 0;
  if (source.length <= ONE_PASS_CHARS) {
    if (re.test(source)) for (const hint of index.rules.keys()) if (source.includes(hint)) found.add(hint);
    return found;
  }
  for (let m = re.exec(source); m !== null; m = re.exec(source)) {
    // Hints that match where this one does are its prefixes: the alternation took the longest.
    for (const p of index.prefixes.get(m[0]) ?? []) found.add(p);
    const left = [...index.rules.keys()].filter((k) => !found.has(k));
    if (left.length === 0) break;
    // Go on for the hints not found yet, from the next character (one may start inside this match).
    const at = m.index + 1;
    re = alternation(left);
    re.lastIndex = at;
  }
  return found;
}

function rulesHinted(text: string): SecretRule[] {
  const out: SecretRule[] = [];
  for (const [index, source] of [[CASED, text], [CASELESS, text.toLowerCase()]] as const) {
    const found = hintsIn(index, source);
    if (found.size === 0) continue;
    for (const [hint, rules] of index.rules) if (found.has(hint)) for (const r of rules) if (!out.includes(r)) out.push(r);
  }
  return out;
}

/** The secret part of a match: its first `s…` group that took part, else all of it. */
function secretRange(m: RegExpExecArray): [number, number] {
  const groups = m.indices?.groups;
  if (groups) {
    for (const [name, range] of Object.entries(groups)) if (name.startsWith('s') && range) return range;
  }
  return [m.index, m.index + m[0].length];
}

/** Secret values to search for: long enough, distinct, longest first. */
export function usableSecrets(secrets: readonly string[]): string[] {
  return [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort(byLength);
}

/**
 * Short texts the rules found nothing in. Which rules match a text depends on the text alone
 * (the rules are constants, `skip` looks only at the match), so a text seen clean stays clean:
 * the tool names, paths, policy ids and reasons that every receipt repeats are scanned once, not
 * once a call (they were about 40 % of redacting a 4 KiB fs.read's receipt). Bounded in entries
 * and in text length; cleared when full. Exact injected values are searched every time (they
 * change per call), and a text that held one is not kept.
 */
const CLEAN = new Set<string>();
export const CLEAN_MAX_CHARS = 1_024;
const CLEAN_MAX_ENTRIES = 8_192;

/** Rule matches in `text`, appended to `spans` (the scan findSecrets caches for short clean texts). */
export function scanPatterns(text: string, spans: SecretSpan[]): void {
  for (const r of rulesHinted(text)) {
    r.re.lastIndex = 0;
    for (let m = r.re.exec(text); m !== null; m = r.re.exec(text)) {
      if (m[0].length === 0) r.re.lastIndex++;
      const [start, end] = secretRange(m);
      const found = text.slice(start, end);
      // A marker left by an earlier pass is not a secret (redaction is idempotent).
      if (end > start && !found.startsWith('[REDACTED') && !(r.skip?.(found) ?? false)) spans.push({ start, end, rule: r.id, kind: 'pattern' });
    }
  }
}

/**
 * Every secret in `text`: exact injected values (`secrets`, from usableSecrets) and rule matches,
 * merged so that no two spans overlap.
 */
export function findSecrets(text: string, secrets: readonly string[], patterns = true): SecretSpan[] {
  const spans: SecretSpan[] = [];
  if (text.length < MIN_MATCH_CHARS) return spans;
  for (const s of secrets) {
    for (let at = text.indexOf(s); at !== -1; at = text.indexOf(s, at + s.length)) spans.push({ start: at, end: at + s.length, rule: 'injected-secret', kind: 'secret_value' });
  }
  if (patterns) {
    const short = text.length <= CLEAN_MAX_CHARS;
    if (!short || !CLEAN.has(text)) {
      const before = spans.length;
      scanPatterns(text, spans);
      if (short && before === 0 && spans.length === 0) {
        if (CLEAN.size >= CLEAN_MAX_ENTRIES) CLEAN.clear();
        CLEAN.add(text);
      }
    }
  }
  return mergeSpans(spans);
}

/** Sorted, overlapping spans joined (the first one's rule names the whole). */
export function mergeSpans(spans: SecretSpan[]): SecretSpan[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretSpan[] = [];
  for (const s of spans) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) {
      if (s.end > last.end) out[out.length - 1] = { ...last, end: s.end };
    } else out.push(s);
  }
  return out;
}

export const REDACTED = '[REDACTED]';

export function markerOf(span: Pick<SecretSpan, 'kind' | 'rule'>): string {
  return span.kind === 'secret_value' ? REDACTED : `[REDACTED:${span.rule}]`;
}

/** `text` with each span (sorted, disjoint, within the text) replaced by its marker. */
export function applySpans(text: string, spans: readonly SecretSpan[]): string {
  if (spans.length === 0) return text;
  let out = '';
  let from = 0;
  for (const s of spans) {
    out += text.slice(from, s.start) + markerOf(s);
    from = s.end;
  }
  return out + text.slice(from);
}
