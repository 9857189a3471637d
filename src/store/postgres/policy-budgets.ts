// Budget usage, reservations and call times on PostgreSQL, with the SQLite store's semantics
// (sqlite/policy-budgets.ts). Where SQLite serializes every reservation with one IMMEDIATE
// write lock, here each task's budget has its own transaction-scoped advisory lock: hosts
// reserving from one task's budget take turns (none passes the last unit twice), other tasks'
// reservations run side by side.
import type { TaskId } from '../../protocol/index.js';
import { BUDGET_DIMENSIONS, type BudgetDimension, type BudgetStore, type BudgetUsageRow, type ReserveResult, type Usage } from '../../policy/index.js';
import type { Database, Transaction } from './database.js';

/** The advisory lock namespace of budget locks (the second key is the task id's hash). */
const BUDGET_LOCK = 0x62756467; // "budg"

async function lockBudget(tx: Transaction, task: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [BUDGET_LOCK, task]);
}

async function addUsage(tx: Transaction, task: string, dim: string, used: number, reserved: number): Promise<void> {
  await tx.query(
    `INSERT INTO policy_budget_usage (task_id, dimension, used, reserved) VALUES ($1, $2, $3, $4)
     ON CONFLICT (task_id, dimension) DO UPDATE SET used = policy_budget_usage.used + $3, reserved = policy_budget_usage.reserved + $4`,
    [task, dim, used, reserved],
  );
}

/** Returns the reservation's amounts and charges `actual` (nothing when released or abandoned). */
async function closeReservation(tx: Transaction, id: string, actual: Usage | null, state?: 'abandoned'): Promise<void> {
  const r = (await tx.query<{ task_id: string; amounts_json: string; state: string }>('SELECT task_id, amounts_json, state FROM policy_budget_reservations WHERE id = $1 FOR UPDATE', [id])).rows[0];
  if (!r || r.state !== 'reserved') return;
  const amounts = JSON.parse(r.amounts_json) as Usage;
  for (const d of BUDGET_DIMENSIONS) {
    const held = amounts[d] ?? 0;
    const spent = actual?.[d] ?? 0;
    if (held !== 0 || spent !== 0) await addUsage(tx, r.task_id, d, spent, -held);
  }
  await tx.query(`UPDATE policy_budget_reservations SET state = $1 WHERE id = $2 AND state = 'reserved'`, [state ?? (actual === null ? 'released' : 'settled'), id]);
}

async function usageRows(q: Pick<Transaction, 'query'>, task: string): Promise<Map<string, BudgetUsageRow>> {
  const rows = (await q.query<{ dimension: string; used: number; reserved: number }>('SELECT dimension, used, reserved FROM policy_budget_usage WHERE task_id = $1', [task])).rows;
  return new Map(rows.map((r) => [r.dimension, { used: r.used, reserved: r.reserved }]));
}

export class PgBudgetStore implements BudgetStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  reserve(req: Parameters<BudgetStore['reserve']>[0]): Promise<ReserveResult> {
    return this.#db.transaction('reserve the budget', async (tx): Promise<ReserveResult> => {
      await lockBudget(tx, req.task_id);
      const abandoned = await tx.query<{ id: string }>(`SELECT id FROM policy_budget_reservations WHERE task_id = $1 AND state = 'reserved' AND expires_at <= $2`, [req.task_id, req.now]);
      for (const { id } of abandoned.rows) await closeReservation(tx, id, null, 'abandoned');
      const rows = await usageRows(tx, req.task_id);
      for (const d of BUDGET_DIMENSIONS) {
        const limit = req.limits[d];
        const requested = req.amounts[d];
        if (limit === null || requested === undefined) continue;
        const { used, reserved } = rows.get(d) ?? { used: 0, reserved: 0 };
        const over = requested > 0 ? used + reserved + requested > limit : used + reserved >= limit;
        if (over) return { ok: false, dimension: d, limit, used, reserved, requested };
      }
      const perMinute = req.limits.calls_per_minute;
      if (perMinute !== null) {
        await tx.query('DELETE FROM policy_call_times WHERE task_id = $1 AND at <= $2', [req.task_id, req.now - 60_000]);
        const n = (await tx.query<{ n: number }>('SELECT count(*) AS n FROM policy_call_times WHERE task_id = $1 AND at > $2', [req.task_id, req.now - 60_000])).rows[0]?.n ?? 0;
        if (n + 1 > perMinute) return { ok: false, dimension: 'calls_per_minute', limit: perMinute, used: n, reserved: 0, requested: 1 };
        await tx.query('INSERT INTO policy_call_times (task_id, at) VALUES ($1, $2)', [req.task_id, req.now]);
      }
      for (const d of BUDGET_DIMENSIONS) {
        const amount = req.amounts[d] ?? 0;
        if (amount !== 0) await addUsage(tx, req.task_id, d, 0, amount);
      }
      await tx.query(`INSERT INTO policy_budget_reservations (id, task_id, amounts_json, state, created_at, expires_at) VALUES ($1, $2, $3, 'reserved', $4, $5)`, [
        req.id,
        req.task_id,
        JSON.stringify(req.amounts),
        req.now,
        req.expires_at,
      ]);
      return { ok: true };
    });
  }

  /** Settles or releases under the task's budget lock, like a reservation (idempotent: a closed one stays closed). */
  async #finish(operation: string, id: string, actual: Usage | null): Promise<void> {
    await this.#db.transaction(operation, async (tx) => {
      const task = (await tx.query<{ task_id: string }>('SELECT task_id FROM policy_budget_reservations WHERE id = $1', [id])).rows[0]?.task_id;
      if (task === undefined) return;
      await lockBudget(tx, task);
      await closeReservation(tx, id, actual);
    });
  }

  settle(id: string, actual: Usage): Promise<void> {
    return this.#finish('settle the budget', id, actual);
  }

  release(id: string): Promise<void> {
    return this.#finish('release the budget', id, null);
  }

  async usage(task: TaskId): Promise<Readonly<Record<BudgetDimension, BudgetUsageRow>>> {
    const rows = await usageRows({ query: (text, values) => this.#db.read('read the budget usage', text, values) }, task);
    return Object.fromEntries(BUDGET_DIMENSIONS.map((d) => [d, rows.get(d) ?? { used: 0, reserved: 0 }])) as Record<BudgetDimension, BudgetUsageRow>;
  }
}
