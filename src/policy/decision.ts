import { ToolgateError, type Decision, type Digest } from '../protocol/index.js';

/** The error code a refused decision carries, exactly as it appears in `error.code`. */
export type RefusalCode = 'policy_denied' | 'approval_required' | 'repeated_denial';

/** A decision of the authorize stage, with what the receipt and an approver need. */
export interface PolicyDecision extends Decision {
  /** `null` when allowed. */
  readonly code: RefusalCode | null;
  /** Digest of the normalized action the decision (and any approval) is bound to. */
  readonly action_digest: Digest;
  /** The pending (or decided) approval request, when one is involved. */
  readonly approval_id: string | null;
}

/** The typed error for a refused decision, or `null` when it allows. */
export function decisionError(d: PolicyDecision): ToolgateError | null {
  if (d.code === null) return null;
  const data = {
    reasons: d.reasons,
    determining: d.determining,
    policy_version: d.policy_version,
    grant_digest: d.grant_digest,
    action_digest: d.action_digest,
    ...(d.approval_id === null ? {} : { approval_id: d.approval_id }),
  };
  switch (d.code) {
    case 'policy_denied':
      return new ToolgateError('policy_denied', `denied: ${d.reasons.join('; ')}`, data);
    case 'approval_required':
      return new ToolgateError('approval_required', `approval ${d.approval_id ?? ''} required: ${d.reasons.join('; ')}`, data);
    case 'repeated_denial':
      return new ToolgateError('repeated_denial', `refused: ${d.reasons.join('; ')}`, data);
  }
}
