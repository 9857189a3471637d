// Durable state the policy layer keeps. Declared here; implemented by each store backend
// (src/store/sqlite/policy-tables.ts), asynchronously like every store method, so that approvals, budgets and denial counts survive a
// restart and are shared by every runtime on the same state file.
import type { Digest, NormalizedAction, TaskId } from '../protocol/index.js';
import type { BudgetDimension, BudgetLimits, Grant } from './grant.js';

export type ApprovalStatus = 'pending' | 'approved' | 'denied';

/** An approval request, bound to one normalized action under one policy version and grant. */
export interface ApprovalRecord {
  readonly id: string;
  readonly task_id: TaskId;
  readonly action_digest: Digest;
  readonly policy_version: string;
  readonly grant_digest: Digest;
  readonly action: NormalizedAction;
  readonly reasons: readonly string[];
  readonly determining: readonly string[];
  readonly status: ApprovalStatus;
  /** Epoch ms. */
  readonly created_at: number;
  /** Epoch ms: a pending request lapses, an approval stops applying. */
  readonly expires_at: number;
  readonly decided_at: number | null;
  readonly decided_by: string | null;
}

/** The binding an approval applies to: all four must be equal. */
export interface ApprovalBinding {
  readonly task_id: TaskId;
  readonly action_digest: Digest;
  readonly policy_version: string;
  readonly grant_digest: Digest;
}

/**
 * One question put to a person about a pending approval through an MCP client (the
 * `requestState` of docs/approvals.md): it names the approval and the action digest shown, and
 * is usable once, before it expires.
 */
export interface ApprovalAsk {
  readonly id: string;
  readonly approval_id: string;
  readonly task_id: TaskId;
  readonly action_digest: Digest;
  /** Epoch ms. */
  readonly created_at: number;
  /** Epoch ms: after this the answer is refused. */
  readonly expires_at: number;
}

/** What using an ask found: the ask (now used), or why it cannot be used. */
export type AskUse = { readonly ok: true; readonly ask: ApprovalAsk } | { readonly ok: false; readonly reason: 'unknown' | 'used' | 'expired' };

export interface ApprovalStore {
  /** The newest request with exactly this binding. */
  findApproval(binding: ApprovalBinding): Promise<ApprovalRecord | undefined>;
  getApproval(id: string): Promise<ApprovalRecord | undefined>;
  createApproval(record: ApprovalRecord): Promise<void>;
  /**
   * Moves a pending, unexpired request to approved or denied; returns the record as stored,
   * or `undefined` when it is not pending (already decided) or has lapsed.
   */
  decideApproval(id: string, decision: { status: 'approved' | 'denied'; by: string; at: number; expires_at: number }): Promise<ApprovalRecord | undefined>;
  listApprovals(filter: { status?: ApprovalStatus; task?: TaskId }): Promise<ApprovalRecord[]>;
  /** Records a question put to a person (and forgets asks that expired before `ask.created_at`). */
  recordAsk(ask: ApprovalAsk): Promise<void>;
  /**
   * Marks the ask used, atomically: of any number of callers (on any host of the store) only
   * the first one before its expiry gets `ok`; the others learn why not.
   */
  useAsk(id: string, at: number): Promise<AskUse>;
}

/** Amounts per budget dimension; absent = 0. */
export type Usage = { readonly [K in BudgetDimension]?: number };

export type ReserveResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly dimension: BudgetDimension | 'calls_per_minute';
      readonly limit: number;
      readonly used: number;
      readonly reserved: number;
      readonly requested: number;
    };

export interface BudgetUsageRow {
  readonly used: number;
  readonly reserved: number;
}

export interface BudgetStore {
  /**
   * Atomically releases the task's abandoned reservations, checks every dimension against
   * `limits` (used + reserved + requested) and the sliding-minute call rate, then records the
   * reservation. Nothing new is recorded on refusal.
   */
  reserve(req: {
    readonly id: string;
    readonly task_id: TaskId;
    readonly limits: BudgetLimits;
    readonly amounts: Usage;
    readonly now: number;
    /**
     * Epoch ms after which an unsettled reservation is abandoned (its call's deadline): a
     * runtime that crashed between admission and commit does not hold the budget forever.
     */
    readonly expires_at: number;
  }): Promise<ReserveResult>;
  /** Replaces the reservation with the actual usage. Idempotent: a settled reservation stays settled. */
  settle(id: string, actual: Usage): Promise<void>;
  /** Drops the reservation without charging anything (the call never ran). */
  release(id: string): Promise<void>;
  usage(task: TaskId): Promise<Readonly<Record<BudgetDimension, BudgetUsageRow>>>;
}

export interface DenialStore {
  denialCount(task: TaskId, key: string): Promise<number>;
  /** Counts one more denial and returns the new count. */
  recordDenial(task: TaskId, key: string, now: number): Promise<number>;
}

/** The grant the runtime issued to each task: stored, never taken from the caller. */
export interface GrantStore {
  getGrant(task: TaskId): Promise<Grant | undefined>;
  /** Stores the task's grant unless it has one; returns the one in force. */
  putGrantIfAbsent(grant: Grant): Promise<Grant>;
}

export interface PolicyStores {
  readonly grants: GrantStore;
  readonly approvals: ApprovalStore;
  readonly budgets: BudgetStore;
  readonly denials: DenialStore;
}
