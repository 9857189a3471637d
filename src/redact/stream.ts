import type { RedactionNote } from '../protocol/index.js';
import { applySpans, findSecrets, markerOf, usableSecrets, type SecretSpan } from './detect.js';
import { MAX_TOKEN_CHARS } from './rules.js';

const BEGIN_KEY = /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g;
const END_KEY = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g;
/** Longer than any END line: what stays held while looking for one. */
const END_HOLD = 80;
const KEY_SPAN: Pick<SecretSpan, 'kind' | 'rule'> = { kind: 'pattern', rule: 'private-key' };

/**
 * Redacts a byte stream (command output, a collected file, an artifact) before anything
 * records it, with the same rules and exact values as receipts. A secret split across two
 * writes is caught: the last MAX_TOKEN_CHARS bytes (or the longest injected value) are held
 * back until the next write or the end, and a private key is followed as a state from its
 * BEGIN line to its END line, however long its body and however it is split.
 *
 * The text is scanned as latin1 (one char per byte): every rule is ASCII, so offsets are byte
 * offsets and a multi-byte character is never split or re-encoded.
 */
export class StreamRedactor {
  readonly #secrets: string[];
  readonly #patterns: boolean;
  readonly #hold: number;
  #carry = '';
  #inKey = false;
  readonly #counts = new Map<string, { kind: SecretSpan['kind']; count: number }>();

  constructor(secrets: readonly string[], patterns = true) {
    this.#secrets = usableSecrets(secrets).map((s) => Buffer.from(s).toString('latin1'));
    this.#patterns = patterns;
    this.#hold = Math.max(this.#patterns ? MAX_TOKEN_CHARS : 0, ...this.#secrets.map((s) => s.length - 1));
  }

  get searchesValues(): boolean {
    return this.#secrets.length > 0;
  }

  /** Secrets replaced so far. */
  get replaced(): number {
    let n = 0;
    for (const c of this.#counts.values()) n += c.count;
    return n;
  }

  notes(pointer: string): RedactionNote[] {
    return [...this.#counts].map(([rule, { kind, count }]) => ({ pointer, kind, rule, count }));
  }

  /** Bytes that are safe to record now. */
  push(chunk: Uint8Array): Buffer {
    return this.#run(this.#carry + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1'), false);
  }

  /** The rest, at the end of the stream. */
  flush(): Buffer {
    return this.#run(this.#carry, true);
  }

  #run(input: string, final: boolean): Buffer {
    let text = input;
    let out = '';
    this.#carry = '';
    for (;;) {
      if (this.#inKey) {
        END_KEY.lastIndex = 0;
        const end = END_KEY.exec(text);
        if (!end) {
          // The body is dropped as it comes; only what may begin an END line is kept.
          this.#carry = final ? '' : text.slice(-END_HOLD);
          break;
        }
        text = text.slice(end.index + end[0].length);
        this.#inKey = false;
        continue;
      }
      const open = this.#patterns ? openKeyAt(text) : -1;
      if (open !== -1) {
        // Nothing before a BEGIN line can continue past it: that part is complete.
        out += this.#redact(text.slice(0, open)) + markerOf(KEY_SPAN);
        this.#count(KEY_SPAN);
        this.#inKey = true;
        text = text.slice(open);
        continue;
      }
      let safe = final ? text.length : Math.max(0, text.length - this.#hold);
      const spans = findSecrets(text, this.#secrets, this.#patterns);
      for (const s of spans) if (s.start < safe && s.end > safe) safe = s.start;
      out += this.#apply(text.slice(0, safe), spans.filter((s) => s.end <= safe));
      this.#carry = text.slice(safe);
      break;
    }
    return Buffer.from(out, 'latin1');
  }

  #redact(text: string): string {
    return this.#apply(text, findSecrets(text, this.#secrets, this.#patterns));
  }

  #apply(text: string, spans: readonly SecretSpan[]): string {
    for (const s of spans) this.#count(s);
    return applySpans(text, spans);
  }

  #count(s: Pick<SecretSpan, 'kind' | 'rule'>): void {
    const c = this.#counts.get(s.rule);
    if (c) c.count++;
    else this.#counts.set(s.rule, { kind: s.kind, count: 1 });
  }
}

/** Offset of the first private key BEGIN line with no END line after it, or -1. */
function openKeyAt(text: string): number {
  BEGIN_KEY.lastIndex = 0;
  for (let m = BEGIN_KEY.exec(text); m !== null; m = BEGIN_KEY.exec(text)) {
    END_KEY.lastIndex = m.index + m[0].length;
    if (!END_KEY.test(text)) return m.index;
    BEGIN_KEY.lastIndex = END_KEY.lastIndex;
  }
  return -1;
}
