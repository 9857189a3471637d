import { randomUUID } from 'node:crypto';
import { ToolgateError, type TaskId } from '../protocol/index.js';
import type { CompiledGrant } from './grant-check.js';
import type { BudgetStore, Usage } from './stores.js';

/** A held reservation: settled at commit with the actual usage, or released when nothing ran. */
export interface BudgetReservation {
  readonly id: string;
  readonly task_id: TaskId;
  readonly amounts: Usage;
}

/** What a call is expected to consume, reserved at admission: one call by default. */
export const DEFAULT_ESTIMATE: Usage = { calls: 1 };

/**
 * Budgets per task: reserve at admission, settle at commit. A dimension named in the estimate
 * is refused once used + reserved + requested would pass its limit (or, for a zero estimate,
 * once it is used up); the call rate counts admissions in a sliding minute.
 */
export class BudgetGate {
  readonly #store: BudgetStore;

  constructor(store: BudgetStore) {
    this.#store = store;
  }

  admit(grant: CompiledGrant, task_id: TaskId, now: number, estimate: Usage = DEFAULT_ESTIMATE): BudgetReservation {
    const id = `bud_${randomUUID()}`;
    const r = this.#store.reserve({ id, task_id, limits: grant.grant.budget, amounts: estimate, now });
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
  settle(reservation: BudgetReservation, actual: Usage): void {
    this.#store.settle(reservation.id, { ...reservation.amounts, ...actual });
  }

  release(reservation: BudgetReservation): void {
    this.#store.release(reservation.id);
  }

  usage(task: TaskId): ReturnType<BudgetStore['usage']> {
    return this.#store.usage(task);
  }
}
