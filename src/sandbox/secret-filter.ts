import { StreamRedactor } from '../redact/index.js';

/**
 * Redacts a byte stream before anything records it: injected secret values and every secret
 * rule, across read boundaries. The mechanism is src/redact/stream.ts (shared with artifacts).
 */
export class SecretFilter {
  readonly #redactor: StreamRedactor;

  constructor(secrets: readonly string[]) {
    this.#redactor = new StreamRedactor(secrets);
  }

  /** Whether any injected value is long enough to be searched for (rules always run). */
  get active(): boolean {
    return this.#redactor.searchesValues;
  }

  get replaced(): number {
    return this.#redactor.replaced;
  }

  /** Bytes that are safe to record now. */
  push(chunk: Buffer): Buffer {
    return this.#redactor.push(chunk);
  }

  flush(): Buffer {
    return this.#redactor.flush();
  }
}
