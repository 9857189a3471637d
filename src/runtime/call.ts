import { ToolgateError, receiptSkeleton, type AttemptId, type ReceiptBody } from '../protocol/index.js';
import type { AnyTool } from '../registry/index.js';
import type { BudgetReservation, PolicyEngine } from '../policy/index.js';
import type { EffectStore } from '../store/index.js';
import type { CallScope } from './call-scope.js';
import type { EffectCallers, RunningEffects } from './attach.js';
import type { RunningCalls } from './running-calls.js';
import { StageClock } from './stage-clock.js';
import { statusOf } from './status.js';
import { usageOf } from './stages/budget.js';
import type { Executed } from './stages/execute.js';
import { taskOf } from './stages/parse.js';

export interface CallOptions {
  /**
   * Client cancellation: the caller stops waiting. A keyed call's effect runs on for the
   * runtime's `detachGraceMs` in case the same key is called again (docs/protocol.md#long-calls).
   */
  readonly signal?: AbortSignal;
  /** Explicit cancellation (MCP tasks/cancel): stops the call at once, keyed or not. */
  readonly cancel?: AbortSignal;
  readonly onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

/** The receipt body a call builds, stage by stage (the store chains it at commit). */
export type Draft = { -readonly [K in keyof Omit<ReceiptBody, 'prev_receipt_digest'>]: Omit<ReceiptBody, 'prev_receipt_digest'>[K] };

/** What a call gives back through: the budget, the effect record's hold, the task's running calls. */
export interface CallServices {
  readonly policy: Pick<PolicyEngine, 'settle' | 'release'>;
  readonly store: Pick<EffectStore, 'letGo'>;
  readonly running: Pick<RunningCalls, 'enter' | 'leave'>;
  readonly effects: Pick<RunningEffects, 'register' | 'unregister'>;
}

/**
 * One call through the pipeline: the receipt it is building, the secrets to redact from it,
 * and everything it acquired, in order: the scope (its signal, timers, listeners and its place
 * among the task's running calls), the budget reservation and the concurrency slot (admit),
 * the effect record (claim). What the run acquired is given back, newest first, by `endRun`
 * as soon as the tool has run, so the slot is free while the receipt commits; `dispose` gives
 * back whatever is still held, newest first: the effect record once the receipt is committed
 * (or could not be), then anything a failed run left. Both are idempotent.
 */
export class Call {
  /** Epoch milliseconds of arrival: the receipt's `started_at`, the default deadline's origin. */
  readonly arrived: number;
  readonly draft: Draft;
  /** What must never be recorded: the runtime's secrets and any the tool adds while it runs. */
  readonly secrets: string[];
  readonly options: CallOptions;
  /** When each stage ran (spans and metrics are built from it after the call). */
  readonly clock = new StageClock();
  /** Absolute epoch milliseconds; a retry keeps the first attempt's (set when the effect record is examined). */
  deadline = 0;
  /** The resolved tool, whose redaction rules apply to the receipt (a refusal's too). */
  tool: AnyTool | null = null;
  readonly #services: CallServices;
  #sent = false;
  #executed: Executed | null = null;
  #executedMs = 0;
  #scope: CallScope | null = null;
  #reservation: BudgetReservation | null = null;
  #slot: (() => void) | null = null;
  #effectKey: string | null = null;
  #callers: EffectCallers | null = null;
  /** The key this call's effect is attachable under, while it runs it. */
  #published: string | null = null;

  constructor(services: CallServices, input: unknown, options: CallOptions, secrets: readonly string[]) {
    this.#services = services;
    this.arrived = Date.now();
    this.draft = receiptSkeleton(taskOf(input), 'att_unparsed' as AttemptId, new Date(this.arrived).toISOString());
    this.secrets = [...secrets];
    this.options = options;
  }

  /** The call's one signal; there is none before admission. */
  get scope(): CallScope {
    if (this.#scope === null) throw new ToolgateError('internal_error', 'the call has no scope before admission');
    return this.#scope;
  }

  /** The effect record this call holds (claimed or sent by it), if any. */
  get effectKey(): string | null {
    return this.#effectKey;
  }

  /** Whether the tool declared that its effect may have started. */
  get sent(): boolean {
    return this.#sent;
  }

  get executed(): Executed | null {
    return this.#executed;
  }

  holdScope(scope: CallScope): CallScope {
    this.#scope = scope;
    this.#services.running.enter(this.draft.task_id, scope);
    return scope;
  }

  holdReservation(reservation: BudgetReservation): void {
    this.#reservation = reservation;
  }

  holdSlot(release: () => void): void {
    this.#slot = release;
  }

  /** The callers of this keyed call's effect (attach.ts): the original caller and any that attach. */
  holdCallers(callers: EffectCallers): EffectCallers {
    this.#callers = callers;
    return callers;
  }

  /** Holds the effect record; a keyed call's effect becomes one a re-issued call can attach to. */
  holdEffect(key: string, attachable: boolean): void {
    this.#effectKey = key;
    if (attachable && this.#callers !== null) {
      this.#services.effects.register(this.draft.task_id, key, this.#callers);
      this.#published = key;
    }
  }

  /** What the tool reports goes to every caller of a keyed effect, or to this call's caller. */
  progress(p: { progress: number; total?: number; message?: string }): void {
    if (this.#callers !== null) this.#callers.progress(p);
    else this.options.onProgress?.(p);
  }

  markedSent(): void {
    this.#sent = true;
  }

  /** The tool's outcome goes into the receipt; its wall time is what the budget is charged. */
  ran(executed: Executed, wallMs: number): void {
    this.#executed = executed;
    this.#executedMs = wallMs;
    const d = this.draft;
    d.status = executed.status;
    d.result = executed.result;
    d.error = executed.error;
    d.truncated = executed.truncated;
    d.partial = executed.partial;
    d.evidence = executed.evidence;
    d.artifacts = [...(executed.artifacts ?? [])];
  }

  /** A refusal (or a defect in a stage, still answered with a receipt: it never escapes call()). */
  fail(e: unknown): void {
    const err = ToolgateError.isInstance(e) ? e : new ToolgateError('internal_error', e instanceof Error ? e.message : String(e), { errno: (e as NodeJS.ErrnoException | null)?.code ?? null });
    this.draft.status = statusOf(err.code);
    this.draft.error = err.toBody();
  }

  /** Gives back what the run acquired, newest first: the slot, the budget reservation, the scope. */
  async endRun(): Promise<void> {
    const slot = this.#slot;
    const reservation = this.#reservation;
    const scope = this.#scope;
    this.#slot = null;
    this.#reservation = null;
    this.#scope = null;
    try {
      slot?.();
      // A grant without a budget reserved nothing (id null): there is no usage to measure.
      if (reservation !== null && reservation.id !== null) {
        const action = this.draft.normalized_action;
        if (this.#executed !== null && action !== null) await this.#services.policy.settle(reservation, usageOf(action, this.#executed, this.#executedMs));
        else await this.#services.policy.release(reservation);
      }
    } finally {
      if (scope !== null) {
        scope.dispose();
        this.#services.running.leave(this.draft.task_id, scope);
      }
    }
  }

  /** For `await using` (TypeScript lowers it for this target; the pipeline keeps try/finally, which costs no helper). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  /** Gives back everything still held, newest first: the effect record, then what the run holds. */
  async dispose(): Promise<void> {
    const key = this.#effectKey;
    this.#effectKey = null;
    try {
      // Committed or not, this call no longer runs its effect: an uncommitted record (the store
      // failed) stays claimed or sent for the next retry or `toolgate reconcile` to settle.
      if (key !== null) await this.#services.store.letGo(this.draft.task_id, key);
    } finally {
      // Only now (the receipt committed, the record let go) do attached calls look at it again.
      const callers = this.#callers;
      this.#callers = null;
      if (callers !== null) {
        if (this.#published !== null) this.#services.effects.unregister(this.draft.task_id, this.#published, callers);
        this.#published = null;
        callers.end();
      }
      if (this.#scope !== null || this.#reservation !== null || this.#slot !== null) await this.endRun();
    }
  }
}
