import { ToolgateError, type NormalizedAction } from '../../protocol/index.js';
import type { PolicyEngine } from '../../policy/index.js';
import type { Admission } from '../admission.js';
import type { Call } from '../call.js';
import { CallScope } from '../call-scope.js';
import type { RunningEffects } from '../attach.js';
import { estimateOf } from './budget.js';

export interface AdmitServices {
  readonly policy: Pick<PolicyEngine, 'admit'>;
  readonly admission: Admission;
  readonly effects: Pick<RunningEffects, 'callers'>;
}

/**
 * The client's cancellation as the call's scope sees it. A keyed call's client signal is its
 * callers' (attach.ts): a client that gave up (its request timed out) stops the effect only if
 * no call with the same key attaches within the grace. A client already gone stops it at once.
 */
function clientSignals(s: AdmitServices, call: Call): { signal: AbortSignal; kind: 'client_cancel' }[] {
  const { signal: client, cancel } = call.options;
  const explicit = cancel ? [{ signal: cancel, kind: 'client_cancel' as const }] : [];
  const keyed = call.draft.idempotency_key !== null || call.draft.logical_effect_id !== null;
  if (!keyed || client?.aborted === true) return [...(client ? [{ signal: client, kind: 'client_cancel' as const }] : []), ...explicit];
  const callers = call.holdCallers(s.effects.callers());
  callers.join(client, call.options.onProgress);
  return [{ signal: callers.signal, kind: 'client_cancel' }, ...explicit];
}

/**
 * The admit stage, each acquisition held by the call as it is made: the call's scope (one
 * signal for deadline ∧ client cancel ∧ task cancel), the budget reservation (settled with the
 * actual usage once the call has run), then a concurrency slot, waited for under the scope's
 * signal. A deadline already past refuses the call here.
 */
export async function admitStage(s: AdmitServices, call: Call, action: NormalizedAction): Promise<void> {
  const deadline = call.deadline;
  const scope = call.holdScope(new CallScope(deadline, clientSignals(s, call)));
  if (scope.signal.aborted && scope.kind === 'deadline') {
    throw new ToolgateError('deadline_expired', 'the deadline passed before the call was admitted', { deadline: new Date(deadline).toISOString(), phase: 'admission' });
  }
  call.holdReservation(await s.policy.admit(call.draft.task_id, Date.now(), { estimate: estimateOf(action), expires_at: deadline }));
  call.holdSlot(await s.admission.acquire(scope.signal));
  call.draft.queued_ms = Date.now() - call.arrived;
}
