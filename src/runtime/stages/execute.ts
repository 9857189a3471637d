import { ToolgateError, errorBody, type AbortKind, type CallStatus, type Envelope, type ErrorBody, type PartialEffect } from '../../protocol/index.js';
import type { AnyTool, ExecuteContext, RedactionWindow, ToolOutcome } from '../../registry/index.js';
import type { Call } from '../call.js';
import type { CallScope } from '../call-scope.js';
import { statusOf } from '../status.js';
import { contextOf, type ContextServices } from './context.js';
import type { Normalized } from './normalize.js';
import type { Validated } from './validate.js';

export type EffectSettlement = 'completed' | 'released' | 'ambiguous';

export interface Executed {
  readonly status: CallStatus;
  readonly result: unknown;
  readonly error: ErrorBody | null;
  readonly truncated: boolean;
  readonly partial: PartialEffect | null;
  readonly evidence: Readonly<Record<string, unknown>>;
  readonly artifacts: ToolOutcome<unknown>['artifacts'];
  /** What the effect record becomes. */
  readonly effect: EffectSettlement;
  readonly redaction_windows: readonly RedactionWindow[];
}

export interface ExecuteServices extends ContextServices {
  /** How long a tool may take to stop after its signal aborts. */
  readonly abortGraceMs: number;
}

/** The execute stage: the tool runs under the call's signal; its outcome and wall time go to the call. */
export async function executeStage(s: ExecuteServices, call: Call, env: Envelope, tool: AnyTool, valid: Validated, normalized: Normalized): Promise<void> {
  const ctx = contextOf(s, call, env, valid, normalized);
  const startedAt = performance.now();
  const executed = await runTool(tool, ctx, call.scope, () => call.sent, s.abortGraceMs);
  call.ran(executed, performance.now() - startedAt);
}

/**
 * Runs the tool under the call's signal. A tool that does not return within `graceMs` of an
 * abort is not waited for further: the call ends, ambiguous if it had sent anything.
 */
async function runTool(
  tool: AnyTool,
  ctx: ExecuteContext<never, never>,
  scope: CallScope,
  sent: () => boolean,
  graceMs: number,
): Promise<Executed> {
  scope.limit(Date.now() + tool.timeout_ms);
  const run = tool.execute(ctx);
  const aborted = scope.aborted();
  let graceTimer: NodeJS.Timeout | undefined;
  const abandoned = aborted.promise.then(
    () =>
      new Promise<'abandoned'>((resolve) => {
        graceTimer = setTimeout(() => resolve('abandoned'), graceMs);
      }),
  );
  try {
    const outcome = await Promise.race([run, abandoned]);
    if (outcome === 'abandoned') {
      run.catch(() => {}); // it may still settle; its answer has no one to go to
      return fromAbort(scope.kind ?? 'deadline', sent(), false);
    }
    return fromOutcome(outcome, sent());
  } catch (e) {
    if (scope.kind !== null) return fromAbort(scope.kind, sent(), true);
    return fromThrown(e, sent());
  } finally {
    aborted.cancel();
    if (graceTimer !== undefined) clearTimeout(graceTimer);
  }
}

function fromOutcome(o: ToolOutcome<unknown>, sent: boolean): Executed {
  const effect: EffectSettlement = o.status === 'ambiguous' ? 'ambiguous' : sent || o.status === 'succeeded' ? 'completed' : 'released';
  const error = o.error ?? (o.status === 'succeeded' ? null : errorBody('execution_failed', `${o.status} without an error body`, {}));
  return {
    status: o.status,
    result: o.result ?? null,
    error,
    truncated: o.truncated ?? false,
    partial: o.partial ?? null,
    evidence: o.evidence ?? {},
    artifacts: o.artifacts ?? [],
    effect,
    redaction_windows: o.redaction_windows ?? [],
  };
}

function bare(status: CallStatus, error: ErrorBody, effect: EffectSettlement): Executed {
  return { status, result: null, error, truncated: false, partial: null, evidence: {}, artifacts: [], effect, redaction_windows: [] };
}

function fromAbort(kind: AbortKind, sent: boolean, toolStopped: boolean): Executed {
  switch (kind) {
    case 'deadline':
    case 'timeout':
      return sent
        ? bare('ambiguous', errorBody('ambiguous_effect', `the ${kind} passed after the effect may have started; reconcile before retrying`, { reason: kind, tool_stopped: toolStopped }), 'ambiguous')
        : bare('timed_out', errorBody('timed_out', `the ${kind} passed before anything was sent; retrying is safe`, { reason: kind, phase: 'before_send', retryable: true, tool_stopped: toolStopped }), 'released');
    case 'client_cancel':
    case 'task_cancel':
      return bare(
        'cancelled',
        errorBody('cancelled', sent ? 'cancelled after the effect may have started' : 'cancelled before anything was sent', {
          by: kind === 'client_cancel' ? 'client' : 'task',
          sent,
          tool_stopped: toolStopped,
        }),
        sent ? 'ambiguous' : 'released',
      );
  }
}

function fromThrown(e: unknown, sent: boolean): Executed {
  if (ToolgateError.isInstance(e) && !sent) return bare(statusOf(e.code), e.toBody(), 'released');
  if (ToolgateError.isInstance(e)) {
    return bare('ambiguous', errorBody('ambiguous_effect', `failed after the effect may have started: ${e.message}`, { cause: e.toBody() }), 'ambiguous');
  }
  const message = e instanceof Error ? e.message : String(e);
  return sent
    ? bare('ambiguous', errorBody('ambiguous_effect', `failed after the effect may have started: ${message}`, {}), 'ambiguous')
    : bare('failed', errorBody('execution_failed', message, {}), 'released');
}
