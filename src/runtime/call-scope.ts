import { CallAborted, type AbortKind } from '../protocol/index.js';

/**
 * One AbortSignal per call: deadline ∧ tool timeout ∧ client cancel ∧ task cancel, with the
 * first reason kept, as a `CallAborted` that carries its kind. `dispose()` clears every timer
 * and listener it made; the call that owns the scope disposes it, so nothing outlives the call.
 */
export class CallScope {
  readonly #controller = new AbortController();
  readonly #cleanups: (() => void)[] = [];
  #kind: AbortKind | null = null;

  constructor(deadline: number, signals: readonly { signal: AbortSignal; kind: AbortKind }[]) {
    this.#timer(deadline, 'deadline');
    for (const { signal, kind } of signals) {
      if (signal.aborted) {
        this.abort(kind);
        continue;
      }
      const onAbort = (): void => this.abort(kind);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#cleanups.push(() => signal.removeEventListener('abort', onAbort));
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get kind(): AbortKind | null {
    return this.#kind;
  }

  /** Adds the tool's own timeout, counted from the start of execution. */
  limit(at: number): void {
    this.#timer(at, 'timeout');
  }

  abort(kind: AbortKind): void {
    if (this.#kind !== null) return;
    this.#kind = kind;
    this.#controller.abort(new CallAborted(kind));
  }

  /** Resolves when the signal aborts; the returned cancel removes the listener. */
  aborted(): { promise: Promise<void>; cancel: () => void } {
    let cancel = (): void => {};
    const promise = new Promise<void>((resolve) => {
      if (this.signal.aborted) return resolve();
      const on = (): void => resolve();
      this.signal.addEventListener('abort', on, { once: true });
      cancel = () => this.signal.removeEventListener('abort', on);
    });
    return { promise, cancel };
  }

  dispose(): void {
    for (const c of this.#cleanups.splice(0)) c();
  }

  #timer(at: number, kind: AbortKind): void {
    const ms = at - Date.now();
    if (ms <= 0) {
      this.abort(kind);
      return;
    }
    const t = setTimeout(() => this.abort(kind), Math.min(ms, 2_147_483_647));
    this.#cleanups.push(() => clearTimeout(t));
  }
}
