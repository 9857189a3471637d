import type { NormalizedAction } from '../../protocol/index.js';
import { decisionError, type CallIdentity, type PolicyDecision, type PolicyEngine } from '../../policy/index.js';

/** Grant ∧ policy over the normalized action, for this task, attempt and time. */
export function authorizeStage(policy: PolicyEngine, action: NormalizedAction, call: CallIdentity): Promise<PolicyDecision> {
  return policy.authorize(action, call);
}

/** Turns a decision that is not `allow` into its typed refusal: policy_denied, approval_required or repeated_denial. */
export function enforceDecision(decision: PolicyDecision): void {
  const refusal = decisionError(decision);
  if (refusal) throw refusal;
}
