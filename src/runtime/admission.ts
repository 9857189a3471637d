import { ToolgateError, abortKindOf } from '../protocol/index.js';

/**
 * A concurrency limit whose queue honours the call's signal: a call whose deadline passes (or
 * that is cancelled) while waiting leaves the queue with no effect.
 */
export class Admission {
  readonly #limit: number;
  #active = 0;
  readonly #waiters: { grant: () => void }[] = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  get active(): number {
    return this.#active;
  }

  get limit(): number {
    return this.#limit;
  }

  get queued(): number {
    return this.#waiters.length;
  }

  /** Resolves with a release function once a slot is held. */
  async acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw this.#refusal(signal);
    if (this.#active < this.#limit && this.#waiters.length === 0) {
      this.#active++;
      return this.#releaser();
    }
    return new Promise<() => void>((resolve, reject) => {
      const waiter = {
        grant: (): void => {
          signal.removeEventListener('abort', onAbort);
          this.#active++;
          resolve(this.#releaser());
        },
      };
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(this.#refusal(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#active--;
      this.#waiters.shift()?.grant();
    };
  }

  #refusal(signal: AbortSignal): ToolgateError {
    const kind = abortKindOf(signal.reason);
    return kind === 'client_cancel' || kind === 'task_cancel'
      ? new ToolgateError('cancelled', 'cancelled while waiting for a concurrency slot', { phase: 'queue' })
      : new ToolgateError('deadline_expired', 'deadline passed while waiting for a concurrency slot', { phase: 'queue' });
  }
}
