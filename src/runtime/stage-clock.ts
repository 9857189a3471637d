/** The stages a call's time is split into (DESIGN §1); `examine` is claim's look before normalize. */
export const STAGES = ['parse', 'resolve', 'validate', 'examine', 'normalize', 'authorize', 'admit', 'claim', 'execute', 'redact', 'commit'] as const;
export type StageName = (typeof STAGES)[number];

/** One stage's interval, in `performance.now()` milliseconds. */
export interface StageTime {
  readonly stage: StageName;
  readonly start: number;
  readonly end: number;
}

/**
 * When each stage of one call ran. Two numbers a stage, taken whether or not anyone listens:
 * spans and metrics are built from them after the call (docs/operating.md), so the pipeline
 * carries no tracer and an unobserved call pays a few `performance.now()` reads.
 */
export class StageClock {
  readonly start = performance.now();
  readonly #times: StageTime[] = [];
  #current: StageName | null = null;
  #since = 0;

  /** The stage now running; the previous one (if any) ends here. */
  enter(stage: StageName): void {
    const now = performance.now();
    if (this.#current !== null) this.#times.push({ stage: this.#current, start: this.#since, end: now });
    this.#current = stage;
    this.#since = now;
  }

  /** The running stage ends (the time after it, e.g. giving back the slot, belongs to no stage). */
  leave(): void {
    if (this.#current === null) return;
    this.#times.push({ stage: this.#current, start: this.#since, end: performance.now() });
    this.#current = null;
  }

  /** The stage a refusal came from: the last one entered. */
  get last(): StageName | null {
    return this.#current ?? this.#times.at(-1)?.stage ?? null;
  }

  get times(): readonly StageTime[] {
    return this.#times;
  }
}
