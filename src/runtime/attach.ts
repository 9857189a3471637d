import { ToolgateError, type TaskId } from '../protocol/index.js';
import type { EffectRecord } from '../store/index.js';

export type ProgressListener = (p: { progress: number; total?: number; message?: string }) => void;

/**
 * The callers of one keyed effect this runtime is running: the call that runs it, and any call
 * re-issued with the same key that attached to it (docs/protocol.md#long-calls). Clients time a
 * request out after about 60 s and cancel it; an agent that re-issues the call should find the
 * effect still running, not killed by the first request's cancellation. So the effect's client
 * signal aborts only when every caller has gone and none came back within the grace. Progress
 * goes to every caller present. `end()` removes every listener and timer it made.
 */
export class EffectCallers {
  readonly #controller = new AbortController();
  readonly #listeners = new Set<ProgressListener>();
  readonly #leaves = new Set<() => void>();
  readonly #graceMs: number;
  readonly #ended: Promise<void>;
  #resolveEnded: () => void = () => {};
  #count = 0;
  #timer: NodeJS.Timeout | null = null;
  #over = false;
  /** No caller can come back: the last one to leave stops the effect at once. */
  #abandoned = false;

  constructor(graceMs: number) {
    this.#graceMs = graceMs;
    this.#ended = new Promise((resolve) => (this.#resolveEnded = resolve));
  }

  /** Aborts once no caller has waited for the effect for the grace (the call reads it as client_cancel). */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Settles when the call that runs the effect has ended and let go of its record. */
  get ended(): Promise<void> {
    return this.#ended;
  }

  /** How many callers wait for the effect now. */
  get callers(): number {
    return this.#count;
  }

  /** A caller waits for the effect until its signal aborts or it calls the returned leave. */
  join(signal: AbortSignal | undefined, onProgress: ProgressListener | undefined): () => void {
    if (this.#over) return () => {};
    this.#count++;
    this.#disarm();
    if (onProgress) this.#listeners.add(onProgress);
    let left = false;
    const leave = (): void => {
      if (left) return;
      left = true;
      signal?.removeEventListener('abort', leave);
      this.#leaves.delete(leave);
      if (onProgress) this.#listeners.delete(onProgress);
      this.#count--;
      if (this.#count === 0 && !this.#over) this.#arm();
    };
    this.#leaves.add(leave);
    if (signal?.aborted) leave();
    else signal?.addEventListener('abort', leave, { once: true });
    return leave;
  }

  progress(p: { progress: number; total?: number; message?: string }): void {
    for (const l of [...this.#listeners]) {
      // Progress is advisory: one caller's failing listener must not stop the others or the call.
      try {
        l(p);
      } catch {
        /* ignored */
      }
    }
  }

  /** Nobody can come back (the task is over): an effect nobody waits for stops now, and one still waited for when its last caller leaves. */
  abandon(): void {
    this.#abandoned = true;
    if (this.#count > 0 || this.#over) return;
    this.#disarm();
    this.#controller.abort();
  }

  /** The effect's call is over: nobody waits any more, attached callers look at its record again. */
  end(): void {
    if (this.#over) return;
    this.#over = true;
    this.#disarm();
    for (const leave of [...this.#leaves]) leave();
    this.#listeners.clear();
    this.#resolveEnded();
  }

  #arm(): void {
    if (this.#graceMs <= 0 || this.#abandoned) {
      this.#controller.abort();
      return;
    }
    this.#timer = setTimeout(() => this.#controller.abort(), this.#graceMs);
  }

  #disarm(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/**
 * The keyed effects running in this runtime, by task and key: what a re-issued call attaches
 * to. Only this runtime's calls are here; an effect another runtime runs (a shared store) is
 * answered `effect_in_progress` as before.
 */
export class RunningEffects {
  readonly #byKey = new Map<string, EffectCallers>();
  readonly graceMs: number;

  constructor(graceMs: number) {
    this.graceMs = graceMs;
  }

  callers(): EffectCallers {
    return new EffectCallers(this.graceMs);
  }

  register(task: TaskId, key: string, callers: EffectCallers): void {
    this.#byKey.set(`${task}\u0000${key}`, callers);
  }

  unregister(task: TaskId, key: string, callers: EffectCallers): void {
    const k = `${task}\u0000${key}`;
    if (this.#byKey.get(k) === callers) this.#byKey.delete(k);
  }

  /** The task is over (its MCP session ended): its effects nobody waits for stop without the grace. */
  abandonTask(task: TaskId): void {
    for (const [k, callers] of this.#byKey) if (k.startsWith(`${task}\u0000`)) callers.abandon();
  }

  /** The runtime is closing: no call can attach any more, so no effect waits out the grace. */
  abandonAll(): void {
    for (const callers of this.#byKey.values()) callers.abandon();
  }

  /**
   * Waits, as one more caller, until the call running `record` here has ended; `absent` when
   * no call of this runtime runs it. Bounded by the caller's deadline and signal: giving up
   * is `effect_in_progress` (the effect runs on; a later call with the key attaches again).
   * When the caller's deadline is the effect's own, it waits `settleMs` more for the receipt
   * of the effect's end, which follows that deadline.
   */
  async attach(
    record: EffectRecord,
    w: { deadline: number; settleMs: number; signal?: AbortSignal | undefined; cancel?: AbortSignal | undefined; onProgress?: ProgressListener | undefined },
  ): Promise<'ended' | 'absent'> {
    const callers = this.#byKey.get(`${record.task_id}\u0000${record.effect_key}`);
    if (callers === undefined) return 'absent';
    const leave = callers.join(w.signal, w.onProgress);
    const until = w.deadline >= record.deadline ? w.deadline + w.settleMs : w.deadline;
    let timer: NodeJS.Timeout | undefined;
    let onAbort = (): void => {};
    // The caller's own cancel (explicit or not) ends its wait only: the effect is not its own.
    const stops = [w.signal, w.cancel].filter((x): x is AbortSignal => x !== undefined);
    const gaveUp = new Promise<'gave_up'>((resolve) => {
      timer = setTimeout(() => resolve('gave_up'), Math.max(0, until - Date.now()));
      onAbort = () => resolve('gave_up');
      for (const stop of stops) {
        if (stop.aborted) resolve('gave_up');
        else stop.addEventListener('abort', onAbort, { once: true });
      }
    });
    try {
      const how = await Promise.race([callers.ended.then(() => 'ended' as const), gaveUp]);
      if (how === 'ended') return 'ended';
      throw new ToolgateError('effect_in_progress', 'the same logical effect is still running under another call; this call stopped waiting for it (call again with the same key to wait again)', {
        key: record.effect_key,
        state: record.state,
        attempt_id: record.attempt_id,
      });
    } finally {
      clearTimeout(timer);
      for (const stop of stops) stop.removeEventListener('abort', onAbort);
      leave();
    }
  }
}
