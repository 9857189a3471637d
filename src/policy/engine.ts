import { LRUCache } from 'lru-cache';
import type { AttemptId, NormalizedAction, TaskId } from '../protocol/index.js';
import type { Manifest } from '../registry/index.js';
import type { PathClassifier } from '../resources/index.js';
import { PolicyAuthorizer } from './authorizer.js';
import { BudgetGate, type AdmitOptions, type BudgetReservation } from './budgets.js';
import { CedarPolicySet, type PolicySource } from './cedar/policy-set.js';
import type { PolicyDecision } from './decision.js';
import { DEFAULT_POLICY_SOURCE } from './default-policy.js';
import { CompiledGrant, type CallIdentity } from './grant-check.js';
import { bindGrant, DEFAULT_GRANT, type Grant, type TaskGrant } from './grant.js';
import type { PolicyStores, Usage } from './stores.js';

const COMPILED_GRANTS_KEPT = 1024;

export interface PolicyEngineOptions {
  /** The registry revision the Cedar schema is generated from (all versions of every tool). */
  readonly manifest: Manifest;
  /** Cedar sources; default: the shipped default policy (policies/default.cedar). */
  readonly policies?: readonly PolicySource[];
  /** The grant file every new task is issued; default: DEFAULT_GRANT. */
  readonly grant?: TaskGrant;
  readonly stores: PolicyStores;
  readonly tenant?: string;
  readonly principal?: string;
  readonly classifier?: PathClassifier;
  readonly repeatedDenialLimit?: number;
  readonly approvalTtlMs?: number;
}

/**
 * The policy layer as the runtime uses it: issues each task its grant (stored, never taken
 * from the caller), authorizes normalized actions, and reserves and settles budgets.
 */
export class PolicyEngine {
  readonly authorizer: PolicyAuthorizer;
  readonly budgets: BudgetGate;
  readonly #stores: PolicyStores;
  readonly #spec: TaskGrant;
  readonly #tenant: string;
  readonly #principal: string;
  /** Compiled grants of recently active tasks (the store holds them all); an active task is never pushed out. */
  readonly #compiled = new LRUCache<string, CompiledGrant>({ max: COMPILED_GRANTS_KEPT });

  constructor(opts: PolicyEngineOptions) {
    const policy = CedarPolicySet.load(opts.manifest, opts.policies ?? [DEFAULT_POLICY_SOURCE]);
    this.#stores = opts.stores;
    this.#spec = opts.grant ?? DEFAULT_GRANT;
    this.#tenant = opts.tenant ?? 'local';
    this.#principal = opts.principal ?? 'local';
    this.authorizer = new PolicyAuthorizer({
      policy,
      stores: opts.stores,
      ...(opts.classifier ? { classifier: opts.classifier } : {}),
      ...(opts.repeatedDenialLimit === undefined ? {} : { repeatedDenialLimit: opts.repeatedDenialLimit }),
      ...(opts.approvalTtlMs === undefined ? {} : { approvalTtlMs: opts.approvalTtlMs }),
    });
    this.budgets = new BudgetGate(opts.stores.budgets);
  }

  get policyVersion(): string {
    return this.authorizer.policyVersion;
  }

  get approvals(): PolicyAuthorizer['approvals'] {
    return this.authorizer.approvals;
  }

  /** The task's grant: issued (bound to the task, any attempt) and stored at its first call. */
  async grantFor(task_id: TaskId): Promise<CompiledGrant> {
    const cached = this.#compiled.get(task_id);
    if (cached) return cached;
    const issued = await this.#stores.grants.putGrantIfAbsent(
      bindGrant(this.#spec, { tenant: this.#tenant, principal: this.#principal, task_id, attempt_id: null, cancellation_epoch: 0 }),
    );
    return this.#remember(task_id, new CompiledGrant(issued));
  }

  /**
   * Issues a given grant (e.g. `attenuate(parentGrant, restrictions, subtaskSubject)`) to the
   * task it is bound to, unless that task already has one; returns the grant in force.
   */
  async issueGrant(grant: Grant): Promise<CompiledGrant> {
    const issued = await this.#stores.grants.putGrantIfAbsent(grant);
    return this.#remember(issued.subject.task_id, new CompiledGrant(issued));
  }

  #remember(task_id: TaskId, compiled: CompiledGrant): CompiledGrant {
    this.#compiled.set(task_id, compiled);
    return compiled;
  }

  /** Authorize stage: the task's stored grant ∧ policy, for this call identity, now. */
  async authorize(action: NormalizedAction, call: { task_id: TaskId; attempt_id: AttemptId; now: number } & Partial<CallIdentity>): Promise<PolicyDecision> {
    return this.authorizer.authorize(action, await this.grantFor(call.task_id), call);
  }

  /** An authorization with no side effects (no approval opened, no denial counted): PolicyAuthorizer.check. */
  async check(action: NormalizedAction, call: { task_id: TaskId; attempt_id: AttemptId; now: number } & Partial<CallIdentity>): Promise<PolicyDecision> {
    return this.authorizer.check(action, await this.grantFor(call.task_id), call);
  }

  /** Admit stage: reserves the estimate (one call by default); throws `budget_exhausted`. */
  async admit(task_id: TaskId, now: number, opts: AdmitOptions = {}): Promise<BudgetReservation> {
    return this.budgets.admit(await this.grantFor(task_id), task_id, now, opts);
  }

  /** Commit: charges the actual usage. */
  settle(reservation: BudgetReservation, actual: Usage): Promise<void> {
    return this.budgets.settle(reservation, actual);
  }

  /** The call never ran (refused after admission, expired in the queue): nothing is charged. */
  release(reservation: BudgetReservation): Promise<void> {
    return this.budgets.release(reservation);
  }
}
