// Budget usage, reservations and call times in the runtime's SQLite file (tables
// policy_budget_usage, policy_budget_reservations, policy_call_times).
import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { TaskId } from '../../protocol/index.js';
import { BUDGET_DIMENSIONS, type BudgetDimension, type BudgetStore, type BudgetUsageRow, type ReserveResult, type Usage } from '../../policy/index.js';

interface UsageRow {
  dimension: string;
  used: number;
  reserved: number;
}

export class SqliteBudgetStore implements BudgetStore {
  readonly #usage: Statement<[string], UsageRow>;
  readonly #add: Statement<[{ task: string; dim: string; used: number; reserved: number }]>;
  readonly #rate: Statement<[string, number], { n: number }>;
  readonly #stamp: Statement<[string, number]>;
  readonly #prune: Statement<[string, number]>;
  readonly #insertReservation: Statement<[string, string, string, number, number]>;
  readonly #abandoned: Statement<[string, number], { id: string }>;
  readonly #reservation: Statement<[string], { task_id: string; amounts_json: string; state: string }>;
  readonly #close: Statement<[string, string]>;
  readonly #reserve: Transaction<(req: Parameters<BudgetStore['reserve']>[0]) => ReserveResult>;
  readonly #finish: Transaction<(id: string, actual: Usage | null, state?: 'abandoned') => void>;

  /** Settles and releases: each is followed by the call's receipt, whose sync makes it durable too. */
  readonly #relaxed: <T>(run: () => T) => T;

  constructor(db: Database, relaxed: <T>(run: () => T) => T = (run) => run()) {
    this.#relaxed = relaxed;
    this.#usage = db.prepare('SELECT dimension, used, reserved FROM policy_budget_usage WHERE task_id = ?');
    this.#add = db.prepare(
      `INSERT INTO policy_budget_usage (task_id, dimension, used, reserved) VALUES (@task, @dim, @used, @reserved)
       ON CONFLICT (task_id, dimension) DO UPDATE SET used = used + @used, reserved = reserved + @reserved`,
    );
    this.#rate = db.prepare('SELECT count(*) AS n FROM policy_call_times WHERE task_id = ? AND at > ?');
    this.#stamp = db.prepare('INSERT INTO policy_call_times (task_id, at) VALUES (?, ?)');
    this.#prune = db.prepare('DELETE FROM policy_call_times WHERE task_id = ? AND at <= ?');
    this.#insertReservation = db.prepare(
      "INSERT INTO policy_budget_reservations (id, task_id, amounts_json, state, created_at, expires_at) VALUES (?, ?, ?, 'reserved', ?, ?)",
    );
    this.#abandoned = db.prepare("SELECT id FROM policy_budget_reservations WHERE task_id = ? AND state = 'reserved' AND expires_at <= ?");
    this.#reservation = db.prepare('SELECT task_id, amounts_json, state FROM policy_budget_reservations WHERE id = ?');
    this.#close = db.prepare("UPDATE policy_budget_reservations SET state = ? WHERE id = ? AND state = 'reserved'");
    this.#reserve = db.transaction((req) => this.#tryReserve(req));
    this.#finish = db.transaction((id: string, actual: Usage | null, state?: 'abandoned') => this.#closeReservation(id, actual, state));
  }

  /** Returns the reservation's amounts and charges `actual` (nothing when released or abandoned). */
  #closeReservation(id: string, actual: Usage | null, state?: 'abandoned'): void {
    const r = this.#reservation.get(id);
    if (!r || r.state !== 'reserved') return;
    const amounts = JSON.parse(r.amounts_json) as Usage;
    for (const d of BUDGET_DIMENSIONS) {
      const held = amounts[d] ?? 0;
      const spent = actual?.[d] ?? 0;
      if (held !== 0 || spent !== 0) this.#add.run({ task: r.task_id, dim: d, used: spent, reserved: -held });
    }
    this.#close.run(state ?? (actual === null ? 'released' : 'settled'), id);
  }

  #rows(task: string): Map<string, BudgetUsageRow> {
    return new Map(this.#usage.all(task).map((r) => [r.dimension, { used: r.used, reserved: r.reserved }]));
  }

  #tryReserve(req: Parameters<BudgetStore['reserve']>[0]): ReserveResult {
    for (const { id } of this.#abandoned.all(req.task_id, req.now)) this.#closeReservation(id, null, 'abandoned');
    const rows = this.#rows(req.task_id);
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
      this.#prune.run(req.task_id, req.now - 60_000);
      const n = this.#rate.get(req.task_id, req.now - 60_000)?.n ?? 0;
      if (n + 1 > perMinute) return { ok: false, dimension: 'calls_per_minute', limit: perMinute, used: n, reserved: 0, requested: 1 };
      this.#stamp.run(req.task_id, req.now);
    }
    for (const d of BUDGET_DIMENSIONS) {
      const amount = req.amounts[d] ?? 0;
      if (amount !== 0) this.#add.run({ task: req.task_id, dim: d, used: 0, reserved: amount });
    }
    this.#insertReservation.run(req.id, req.task_id, JSON.stringify(req.amounts), req.now, req.expires_at);
    return { ok: true };
  }

  async reserve(req: Parameters<BudgetStore['reserve']>[0]): Promise<ReserveResult> {
    // IMMEDIATE: two runtimes on one file cannot both pass the same last unit of a budget.
    return this.#reserve.immediate(req);
  }

  async settle(id: string, actual: Usage): Promise<void> {
    this.#relaxed(() => this.#finish.immediate(id, actual));
  }

  async release(id: string): Promise<void> {
    this.#relaxed(() => this.#finish.immediate(id, null));
  }

  async usage(task: TaskId): Promise<Readonly<Record<BudgetDimension, BudgetUsageRow>>> {
    const rows = this.#rows(task);
    return Object.fromEntries(BUDGET_DIMENSIONS.map((d) => [d, rows.get(d) ?? { used: 0, reserved: 0 }])) as Record<BudgetDimension, BudgetUsageRow>;
  }
}
