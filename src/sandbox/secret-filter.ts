import { MIN_SECRET_LENGTH, REDACTED } from '../redact/index.js';

const MARK = Buffer.from(REDACTED);

/**
 * Replaces injected secret values in a byte stream before anything records it. A value split
 * across two reads is caught: the last (longest secret − 1) bytes are held back until the next
 * read or the end of the stream.
 */
export class SecretFilter {
  readonly #secrets: Buffer[];
  readonly #hold: number;
  #carry: Buffer = Buffer.alloc(0);
  replaced = 0;

  constructor(secrets: readonly string[]) {
    this.#secrets = [...new Set(secrets)]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .map((s) => Buffer.from(s))
      .sort((a, b) => b.length - a.length);
    this.#hold = this.#secrets.length ? (this.#secrets[0] as Buffer).length - 1 : 0;
  }

  get active(): boolean {
    return this.#secrets.length > 0;
  }

  /** Bytes that are safe to record now. */
  push(chunk: Buffer): Buffer {
    if (!this.active) return chunk;
    const data = this.#replace(this.#carry.length ? Buffer.concat([this.#carry, chunk]) : chunk);
    const cut = Math.max(0, data.length - this.#hold);
    this.#carry = Buffer.from(data.subarray(cut));
    return data.subarray(0, cut);
  }

  flush(): Buffer {
    const rest = this.#carry;
    this.#carry = Buffer.alloc(0);
    return rest;
  }

  #replace(data: Buffer): Buffer {
    let out = data;
    for (const secret of this.#secrets) {
      let at = out.indexOf(secret);
      if (at === -1) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at !== -1) {
        parts.push(out.subarray(from, at), MARK);
        this.replaced++;
        from = at + secret.length;
        at = out.indexOf(secret, from);
      }
      parts.push(out.subarray(from));
      out = Buffer.concat(parts);
    }
    return out;
  }
}
