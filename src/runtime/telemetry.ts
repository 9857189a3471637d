import { context, trace, type Context, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { TOOLGATE_VERSION, ToolgateError, type Receipt } from '../protocol/index.js';
import type { Call } from './call.js';
import type { CallObserver, EndedCall, SettledBy } from './observe.js';
import type { Settlement } from './reconcile.js';
import { traceCall } from './trace.js';

/**
 * What a runtime tells of its calls: spans to its tracer provider (the global one unless given:
 * a no-op until someone registers a provider) and each ended call to its observers (metrics).
 * Neither can change or fail a call.
 */
export class CallTelemetry {
  readonly #tracer: Tracer;
  readonly #observers: readonly CallObserver[];
  readonly #onError: (e: unknown) => void;

  constructor(provider: TracerProvider | undefined, observers: readonly CallObserver[], onError: (e: unknown) => void = () => {}) {
    this.#tracer = (provider ?? trace.getTracerProvider()).getTracer('toolgate', TOOLGATE_VERSION);
    this.#observers = observers;
    this.#onError = onError;
  }

  /** The context a call starts in: a library user's active span becomes the call's parent. */
  parent(): Context {
    return context.active();
  }

  /** After the call: its receipt (null when the commit failed with `thrown`). */
  ended(call: Call, parent: Context, receipt: Receipt | null, thrown: unknown): void {
    try {
      const end = performance.now();
      const body =
        receipt ??
        ({ ...call.draft, error: ToolgateError.isInstance(thrown) ? thrown.toBody() : call.draft.error, status: 'failed' } satisfies EndedCall['receipt']);
      const ended: EndedCall = { receipt: body, stages: call.clock.times, start: call.clock.start, end };
      this.#guard(() => traceCall(this.#tracer, parent, ended, call.secrets, call.tool?.description ?? null));
      for (const o of this.#observers) this.#guard(() => o.callEnded(ended));
    } catch (e) {
      this.#onError(e);
    }
  }

  #guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      this.#onError(e);
    }
  }

  reconciled(tool: string, settled: Settlement, by: SettledBy): void {
    for (const o of this.#observers) this.#guard(() => o.reconciled?.(tool, settled, by));
  }
}
