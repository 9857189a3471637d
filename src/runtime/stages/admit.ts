import { ToolgateError, type NormalizedAction } from '../../protocol/index.js';
import type { PolicyEngine } from '../../policy/index.js';
import type { Admission } from '../admission.js';
import type { Call } from '../call.js';
import { CallScope } from '../call-scope.js';
import { estimateOf } from './budget.js';

export interface AdmitServices {
  readonly policy: Pick<PolicyEngine, 'admit'>;
  readonly admission: Admission;
}

/**
 * The admit stage, each acquisition held by the call as it is made: the call's scope (one
 * signal for deadline ∧ client cancel ∧ task cancel), the budget reservation (settled with the
 * actual usage once the call has run), then a concurrency slot, waited for under the scope's
 * signal. A deadline already past refuses the call here.
 */
export async function admitStage(s: AdmitServices, call: Call, action: NormalizedAction): Promise<void> {
  const deadline = call.deadline;
  const client = call.options.signal;
  const scope = call.holdScope(new CallScope(deadline, client ? [{ signal: client, kind: 'client_cancel' }] : []));
  if (scope.signal.aborted && scope.kind === 'deadline') {
    throw new ToolgateError('deadline_expired', 'the deadline passed before the call was admitted', { deadline: new Date(deadline).toISOString(), phase: 'admission' });
  }
  call.holdReservation(await s.policy.admit(call.draft.task_id, Date.now(), { estimate: estimateOf(action), expires_at: deadline }));
  call.holdSlot(await s.admission.acquire(scope.signal));
  call.draft.queued_ms = Date.now() - call.arrived;
}
