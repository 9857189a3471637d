import type { NormalizedAction } from '../../protocol/index.js';
import { decisionError, type PolicyDecision, type PolicyEngine } from '../../policy/index.js';
import type { TaskStore } from '../../store/index.js';
import type { Call } from '../call.js';

export interface AuthorizeServices {
  readonly policy: Pick<PolicyEngine, 'authorize'>;
  readonly store: Pick<TaskStore, 'currentRevision'>;
  /** The environment name grants may be conditioned on. */
  readonly environment: string | undefined;
}

/**
 * Grant ∧ policy over the normalized action, for this task, attempt and time. The decision
 * goes in the receipt; one that is not `allow` is its typed refusal: policy_denied,
 * approval_required or repeated_denial.
 */
export async function authorizeStage(s: AuthorizeServices, call: Call, action: NormalizedAction): Promise<void> {
  const decision = await s.policy.authorize(action, {
    task_id: call.draft.task_id,
    attempt_id: call.draft.attempt_id,
    now: Date.now(),
    revision: async () => `r${await s.store.currentRevision()}`,
    ...(s.environment !== undefined ? { environment: s.environment } : {}),
  });
  call.draft.decision = decision;
  enforceDecision(decision);
}

function enforceDecision(decision: PolicyDecision): void {
  const refusal = decisionError(decision);
  if (refusal) throw refusal;
}
