import { randomUUID } from 'node:crypto';
import { ToolgateError, type Digest, type NormalizedAction, type TaskId } from '../protocol/index.js';
import type { ApprovalBinding, ApprovalRecord, ApprovalStatus, ApprovalStore } from './stores.js';

export type ApprovalState = ApprovalRecord & { readonly expired: boolean };

/**
 * Approval requests and decisions. A request binds the normalized action digest, the policy
 * version and the grant digest; only a call with all three equal (in the same task) can use
 * the decision. Requests and approvals expire.
 */
export class ApprovalDesk {
  readonly #store: ApprovalStore;
  readonly #ttlMs: number;

  constructor(store: ApprovalStore, ttlMs: number) {
    this.#store = store;
    this.#ttlMs = ttlMs;
  }

  /**
   * The approval that applies to this binding now: an unexpired decision, else the open
   * request, else a new request.
   */
  async requestOrFind(binding: ApprovalBinding, action: NormalizedAction, why: { reasons: readonly string[]; determining: readonly string[] }, now: number): Promise<ApprovalRecord> {
    const found = await this.#store.findApproval(binding);
    if (found && now < found.expires_at) return found;
    const record: ApprovalRecord = {
      id: `apr_${randomUUID()}`,
      ...binding,
      action,
      reasons: why.reasons,
      determining: why.determining,
      status: 'pending',
      created_at: now,
      expires_at: now + this.#ttlMs,
      decided_at: null,
      decided_by: null,
    };
    await this.#store.createApproval(record);
    return record;
  }

  /**
   * Approves a pending request. `shown` is the action digest the approver was shown (a web
   * view, an MCP question): a request that binds another action is refused, not approved.
   */
  approve(id: string, by: string, now: number, shown?: Digest): Promise<ApprovalRecord> {
    return this.#decide(id, 'approved', by, now, shown);
  }

  deny(id: string, by: string, now: number, shown?: Digest): Promise<ApprovalRecord> {
    return this.#decide(id, 'denied', by, now, shown);
  }

  get(id: string): Promise<ApprovalRecord | undefined> {
    return this.#store.getApproval(id);
  }

  async list(filter: { status?: ApprovalStatus; task?: TaskId }, now: number): Promise<ApprovalState[]> {
    return (await this.#store.listApprovals(filter)).map((r) => ({ ...r, expired: now >= r.expires_at }));
  }

  async #decide(id: string, status: 'approved' | 'denied', by: string, now: number, shown: Digest | undefined): Promise<ApprovalRecord> {
    if (shown !== undefined) {
      const bound = await this.#store.getApproval(id);
      if (!bound) throw new ToolgateError('not_found', `no approval request ${id}`, { approval_id: id });
      // The binding never changes after creation, so a check before the decision is enough.
      if (bound.action_digest !== shown) {
        throw new ToolgateError('precondition_failed', `approval request ${id} binds another action than the one shown`, {
          approval_id: id,
          status: bound.status,
          expires_at: new Date(bound.expires_at).toISOString(),
          action_digest: bound.action_digest,
          shown_digest: shown,
        });
      }
    }
    const decided = await this.#store.decideApproval(id, { status, by, at: now, expires_at: now + this.#ttlMs });
    if (decided) return decided;
    const existing = await this.#store.getApproval(id);
    if (!existing) throw new ToolgateError('not_found', `no approval request ${id}`, { approval_id: id });
    const why = existing.status !== 'pending' ? `it was already ${existing.status}` : 'it has expired';
    throw new ToolgateError('precondition_failed', `approval request ${id} cannot be decided: ${why}`, {
      approval_id: id,
      status: existing.status,
      expires_at: new Date(existing.expires_at).toISOString(),
    });
  }
}
