import { ToolgateError, type Decision, type NormalizedAction } from '../../protocol/index.js';

/** What the authorize stage asks: grant ∧ policy over the normalized action. */
export interface Authorizer {
  authorize(action: NormalizedAction): Decision;
}

/** Turns a decision that is not `allow` into the typed refusal. */
export function enforceDecision(decision: Decision): void {
  switch (decision.outcome) {
    case 'allow':
      return;
    case 'deny':
      throw new ToolgateError('policy_denied', `denied: ${decision.reasons.join('; ')}`, {
        reasons: decision.reasons,
        determining: decision.determining,
        policy_version: decision.policy_version,
      });
    case 'ask':
      throw new ToolgateError('approval_required', `approval required: ${decision.reasons.join('; ')}`, {
        reasons: decision.reasons,
        determining: decision.determining,
        policy_version: decision.policy_version,
      });
  }
}
