// How a tool body turns into an outcome. Domain failures are outcomes, never exceptions; these
// two helpers draw that line the same way for every tool.
import { ToolgateError, type ErrorBody, type PartialEffect } from '../protocol/index.js';
import type { EffectIntent, ToolOutcome } from './context.js';

/** A failed outcome carrying a typed error; nothing else to say. */
export function failedOutcome<R>(error: ErrorBody, partial?: PartialEffect): ToolOutcome<R> {
  return partial ? { status: 'failed', result: null, error, partial } : { status: 'failed', result: null, error };
}

/**
 * Runs a tool body with a context whose markSent is observed. A typed failure before anything
 * was sent is a domain outcome (nothing happened); after, it is rethrown so that the runtime
 * records the call as ambiguous, unless the body itself said what happened (a partial outcome).
 */
export async function asOutcome<C extends { markSent(intent?: EffectIntent): Promise<void> }, R>(ctx: C, run: (ctx: C) => Promise<ToolOutcome<R>>): Promise<ToolOutcome<R>> {
  let sent = false;
  const tracked: C = {
    ...ctx,
    markSent: (intent?: EffectIntent) => {
      sent = true;
      return ctx.markSent(intent);
    },
  };
  try {
    return await run(tracked);
  } catch (e) {
    if (ToolgateError.isInstance(e) && !sent) return failedOutcome(e.toBody());
    throw e;
  }
}
