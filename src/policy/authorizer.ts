import { approvalView, digestOf, type Digest, type NormalizedAction } from '../protocol/index.js';
import { PathClassifier } from '../resources/index.js';
import { ApprovalDesk } from './approvals.js';
import type { CedarPolicySet } from './cedar/policy-set.js';
import { cedarRequestsOf } from './cedar/request.js';
import type { PolicyDecision } from './decision.js';
import type { CallIdentity, CompiledGrant, SeenCall } from './grant-check.js';
import type { PolicyStores } from './stores.js';

export interface PolicyAuthorizerOptions {
  readonly policy: CedarPolicySet;
  readonly stores: PolicyStores;
  /** Secret and protected path rules; the workspace's classifier when the runtime has one. */
  readonly classifier?: PathClassifier;
  /** Denials of one normalized action in a task before identical calls get `repeated_denial`. Default 3. */
  readonly repeatedDenialLimit?: number;
  /** How long an approval request stays open, and an approval applies. Default one hour. */
  readonly approvalTtlMs?: number;
}

interface Parts {
  readonly reasons: string[];
  readonly determining: string[];
}

/**
 * The authorize stage: grant ∧ Cedar policy over the normalized action, for one call identity
 * at one time. Deny by default: no permitting policy, a policy that errors, a grant dimension
 * that does not cover the action, or a grant of another task all deny.
 */
export class PolicyAuthorizer {
  readonly policy: CedarPolicySet;
  readonly approvals: ApprovalDesk;
  readonly #stores: PolicyStores;
  readonly #classifier: PathClassifier;
  readonly #denialLimit: number;

  constructor(opts: PolicyAuthorizerOptions) {
    this.policy = opts.policy;
    this.#stores = opts.stores;
    this.#classifier = opts.classifier ?? new PathClassifier();
    this.#denialLimit = Math.max(1, opts.repeatedDenialLimit ?? 3);
    this.approvals = new ApprovalDesk(opts.stores.approvals, opts.approvalTtlMs ?? 3_600_000);
  }

  get policyVersion(): Digest {
    return this.policy.version;
  }

  async authorize(action: NormalizedAction, grant: CompiledGrant, identity: CallIdentity): Promise<PolicyDecision> {
    const action_digest = digestOf(approvalView(action));
    const base = { policy_version: this.policy.version, grant_digest: grant.digest, action_digest };
    // The workspace revision is read (from the store) only when a grant condition needs it.
    const call: SeenCall = { ...identity, revision: typeof identity.revision === 'function' ? (grant.requiresRevision ? await identity.revision() : undefined) : identity.revision };
    const { deny, ask } = this.#evaluate(action, grant, call);
    if (deny.reasons.length > 0) return this.#refuse(call, base, deny);
    if (ask.reasons.length === 0) return { outcome: 'allow', code: null, approval_id: null, reasons: [], determining: [], ...base };

    const approval = await this.approvals.requestOrFind({ task_id: call.task_id, ...base }, action, ask, call.now);
    switch (approval.status) {
      case 'approved':
        return { outcome: 'allow', code: null, approval_id: approval.id, reasons: [`approved by ${approval.decided_by ?? 'unknown'}`], determining: [`approval:${approval.id}`], ...base };
      case 'denied':
        return this.#refuse(call, { ...base, approval_id: approval.id }, {
          reasons: [`approval ${approval.id} was denied by ${approval.decided_by ?? 'unknown'}`],
          determining: [`approval:${approval.id}`],
        });
      case 'pending':
        return { outcome: 'ask', code: 'approval_required', approval_id: approval.id, reasons: ask.reasons, determining: ask.determining, ...base };
    }
  }

  /**
   * The same evaluation without its side effects: no approval request is opened and no denial
   * is counted. For a tool that meets a new resource mid-call (a redirect to another host) and
   * must not reach it unless the grant and policy would allow a call that named it; `ask` means
   * a new call, with its own approval, is needed.
   */
  async check(action: NormalizedAction, grant: CompiledGrant, identity: CallIdentity): Promise<PolicyDecision> {
    const action_digest = digestOf(approvalView(action));
    const base = { policy_version: this.policy.version, grant_digest: grant.digest, action_digest, approval_id: null };
    const call: SeenCall = { ...identity, revision: typeof identity.revision === 'function' ? (grant.requiresRevision ? await identity.revision() : undefined) : identity.revision };
    const { deny, ask } = this.#evaluate(action, grant, call);
    if (deny.reasons.length > 0) return { ...base, outcome: 'deny', code: 'policy_denied', ...deny };
    if (ask.reasons.length > 0) return { ...base, outcome: 'ask', code: 'approval_required', ...ask };
    return { ...base, outcome: 'allow', code: null, reasons: [], determining: [] };
  }

  /** What refuses (grant faults, forbids, default deny, erroring policies) and what asks for approval. */
  #evaluate(action: NormalizedAction, grant: CompiledGrant, call: SeenCall): { deny: Parts; ask: Parts } {
    const deny: Parts = { reasons: [], determining: [] };
    const ask: Parts = { reasons: [], determining: [] };
    const faults = [
      ...grant.checkSubject(call),
      ...grant.checkTime(call.now),
      ...grant.checkConditions(call, this.policy.version),
      ...grant.checkScope(action),
    ];
    for (const f of faults) {
      deny.reasons.push(f.reason);
      deny.determining.push(f.id);
    }
    if (faults.length > 0) return { deny, ask };
    if (grant.requiresApproval(action)) {
      ask.reasons.push(`the grant requires approval for ${action.effect_class} effects`);
      ask.determining.push('grant.approval_required');
    }
    for (const req of cedarRequestsOf(action, grant.grant.subject, call.attempt_id, call.now, this.#classifier, this.policy.restrictsPrograms)) {
      const v = this.policy.evaluate(req);
      const what = `${action.tool} on ${req.resource.type} ${req.resource.id}`;
      if (v.errored.length > 0) {
        // Cedar skips a policy that errors; an erroring forbid would then let the call through.
        for (const e of v.errored) {
          deny.reasons.push(`policy ${e.id} failed to evaluate for ${what}: ${e.message}`);
          deny.determining.push(e.id);
        }
      } else if (v.decision === 'deny') {
        const forbids = v.satisfied.filter((id) => this.policy.policies.get(id)?.effect === 'forbid');
        if (forbids.length === 0) {
          deny.reasons.push(`no policy permits ${what}`);
          deny.determining.push('policy.default_deny');
        }
        for (const id of forbids) {
          deny.reasons.push(this.policy.policies.get(id)?.reason ?? `policy ${id} forbids ${what}`);
          deny.determining.push(id);
        }
      } else {
        for (const id of v.satisfied) {
          const p = this.policy.policies.get(id);
          if (p?.requires_approval && !ask.determining.includes(id)) {
            ask.determining.push(id);
            ask.reasons.push(p.reason ?? `policy ${id} requires approval for ${what}`);
          }
        }
      }
    }
    return { deny, ask };
  }

  async #refuse(call: SeenCall, base: Omit<PolicyDecision, 'outcome' | 'code' | 'reasons' | 'determining' | 'approval_id'> & { approval_id?: string }, parts: Parts): Promise<PolicyDecision> {
    const key = digestOf([base.action_digest, base.policy_version, base.grant_digest]);
    const count = await this.#stores.denials.recordDenial(call.task_id, key, call.now);
    const approval_id = base.approval_id ?? null;
    if (count > this.#denialLimit) {
      return {
        ...base,
        outcome: 'deny',
        code: 'repeated_denial',
        approval_id,
        reasons: [`this action was denied ${count - 1} times in task ${call.task_id}; identical calls are refused`, ...parts.reasons],
        determining: ['policy.repeated_denial', ...parts.determining],
      };
    }
    return { ...base, outcome: 'deny', code: 'policy_denied', approval_id, reasons: parts.reasons, determining: parts.determining };
  }
}
