import { randomUUID } from 'node:crypto';
import { ToolgateError, type TaskId } from '../protocol/index.js';
import type { CompiledGrant } from './grant-check.js';
import type { BudgetStore, Usage } from './stores.js';

/** A held reservation: settled at commit with the actual usage, or released when nothing ran. */
export interface BudgetReservation {
  /** `null` when the grant has no budget: nothing was reserved and nothing is recorded. */
  readonly id: string | null;
  readonly task_id: TaskId;
  readonly amounts: Usage;
}

export interface AdmitOptions {
  /** What the call is expected to use; default one call. */
  readonly estimate?: Usage;
  /** When an unsettled reservation is abandoned (the call's deadline); default an hour from now. */
  readonly expires_at?: number;
}

const ABANDON_AFTER_MS = 3_600_000;

/** What a call is expected to consume, reserved at admission: one call by default. */
export const DEFAULT_ESTIMATE: Usage = { calls: 1 };

/**
 * Budgets per task: reserve at admission, settle at commit. Usage is recorded for grants that
 * have a budget. A dimension named in the estimate
 * is refused once used + reserved + requested would pass its limit (or, for a zero estimate,
 * once it is used up); the call rate counts admissions in a sliding minute.
 */
export class BudgetGate {
  readonly #store: BudgetStore;

  constructor(store: BudgetStore) {
    this.#store = store;
  }

  async admit(grant: CompiledGrant, task_id: TaskId, now: number, opts: AdmitOptions = {}): Promise<BudgetReservation> {
    const estimate = opts.estimate ?? DEFAULT_ESTIMATE;
    // a grant without any limit has nothing to enforce: no write on the call's path
    if (Object.values(grant.grant.budget).every((l) => l === null)) return { id: null, task_id, amounts: estimate };
    const id = `bud_${randomUUID()}`;
    const r = await this.#store.reserve({ id, task_id, limits: grant.grant.budget, amounts: estimate, now, expires_at: opts.expires_at ?? now + ABANDON_AFTER_MS });
    if (!r.ok) {
      throw new ToolgateError('budget_exhausted', `budget ${r.dimension} exhausted: limit ${r.limit}, used ${r.used}, reserved ${r.reserved}, requested ${r.requested}`, {
        dimension: r.dimension,
        limit: r.limit,
        used: r.used,
        reserved: r.reserved,
        requested: r.requested,
        grant_digest: grant.digest,
      });
    }
    return { id, task_id, amounts: estimate };
  }

  /** Charges the actual usage; a dimension absent from `actual` is charged as reserved. */
  async settle(reservation: BudgetReservation, actual: Usage): Promise<void> {
    if (reservation.id !== null) await this.#store.settle(reservation.id, { ...reservation.amounts, ...actual });
  }

  async release(reservation: BudgetReservation): Promise<void> {
    if (reservation.id !== null) await this.#store.release(reservation.id);
  }

  usage(task: TaskId): ReturnType<BudgetStore['usage']> {
    return this.#store.usage(task);
  }
}
