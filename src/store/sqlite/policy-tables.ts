// The policy layer's durable state in the runtime's SQLite file: issued grants, approval
// requests, budget usage and reservations, call times (rate), and denial counts.
import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { Digest, NormalizedAction, TaskId } from '../../protocol/index.js';
import {
  BUDGET_DIMENSIONS,
  type ApprovalBinding,
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  type BudgetDimension,
  type BudgetStore,
  type BudgetUsageRow,
  type DenialStore,
  type Grant,
  type GrantStore,
  type PolicyStores,
  type ReserveResult,
  type Usage,
  grantDigest,
} from '../../policy/index.js';

const POLICY_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS policy_grants (
  task_id TEXT PRIMARY KEY,
  digest TEXT NOT NULL,
  grant_json TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS policy_approvals (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  action_digest TEXT NOT NULL,
  policy_version TEXT NOT NULL,
  grant_digest TEXT NOT NULL,
  action_json TEXT NOT NULL,
  reasons_json TEXT NOT NULL,
  determining_json TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  decided_at INTEGER,
  decided_by TEXT
);
CREATE INDEX IF NOT EXISTS policy_approvals_by_binding
  ON policy_approvals(task_id, action_digest, policy_version, grant_digest, created_at);
CREATE TABLE IF NOT EXISTS policy_budget_usage (
  task_id TEXT NOT NULL,
  dimension TEXT NOT NULL,
  used INTEGER NOT NULL DEFAULT 0,
  reserved INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (task_id, dimension)
);
CREATE TABLE IF NOT EXISTS policy_budget_reservations (
  id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  amounts_json TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'released', 'abandoned')),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS policy_budget_reservations_open ON policy_budget_reservations(task_id, state, expires_at);
CREATE TABLE IF NOT EXISTS policy_call_times (
  task_id TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS policy_call_times_by_task ON policy_call_times(task_id, at);
CREATE TABLE IF NOT EXISTS policy_denials (
  task_id TEXT NOT NULL,
  denial_key TEXT NOT NULL,
  count INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, denial_key)
);
`;

/** The same tables as one migration step, for the store's versioned migration sets. */
export const POLICY_MIGRATIONS = { name: 'policy', steps: [POLICY_TABLES_SQL] } as const;

/** Creates the policy tables when missing. Safe to call on every open. */
export function migratePolicyTables(db: Database): void {
  db.exec(POLICY_TABLES_SQL);
}

interface ApprovalRow {
  id: string;
  task_id: string;
  action_digest: string;
  policy_version: string;
  grant_digest: string;
  action_json: string;
  reasons_json: string;
  determining_json: string;
  status: ApprovalStatus;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
}

function approvalOf(r: ApprovalRow): ApprovalRecord {
  return {
    id: r.id,
    task_id: r.task_id as TaskId,
    action_digest: r.action_digest as Digest,
    policy_version: r.policy_version,
    grant_digest: r.grant_digest as Digest,
    action: JSON.parse(r.action_json) as NormalizedAction,
    reasons: JSON.parse(r.reasons_json) as string[],
    determining: JSON.parse(r.determining_json) as string[],
    status: r.status,
    created_at: r.created_at,
    expires_at: r.expires_at,
    decided_at: r.decided_at,
    decided_by: r.decided_by,
  };
}

class SqliteApprovalStore implements ApprovalStore {
  readonly #find: Statement<[string, string, string, string], ApprovalRow>;
  readonly #get: Statement<[string], ApprovalRow>;
  readonly #insert: Statement<[ApprovalRow]>;
  readonly #decide: Statement<[ApprovalStatus, number, string, number, string, number]>;
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#find = db.prepare(
      `SELECT * FROM policy_approvals WHERE task_id = ? AND action_digest = ? AND policy_version = ? AND grant_digest = ?
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    );
    this.#get = db.prepare('SELECT * FROM policy_approvals WHERE id = ?');
    this.#insert = db.prepare(
      `INSERT INTO policy_approvals (id, task_id, action_digest, policy_version, grant_digest, action_json, reasons_json, determining_json, status, created_at, expires_at, decided_at, decided_by)
       VALUES (@id, @task_id, @action_digest, @policy_version, @grant_digest, @action_json, @reasons_json, @determining_json, @status, @created_at, @expires_at, @decided_at, @decided_by)`,
    );
    this.#decide = db.prepare(
      `UPDATE policy_approvals SET status = ?, decided_at = ?, decided_by = ?, expires_at = ?
       WHERE id = ? AND status = 'pending' AND expires_at > ?`,
    );
  }

  findApproval(b: ApprovalBinding): ApprovalRecord | undefined {
    const r = this.#find.get(b.task_id, b.action_digest, b.policy_version, b.grant_digest);
    return r && approvalOf(r);
  }

  getApproval(id: string): ApprovalRecord | undefined {
    const r = this.#get.get(id);
    return r && approvalOf(r);
  }

  createApproval(a: ApprovalRecord): void {
    this.#insert.run({
      id: a.id,
      task_id: a.task_id,
      action_digest: a.action_digest,
      policy_version: a.policy_version,
      grant_digest: a.grant_digest,
      action_json: JSON.stringify(a.action),
      reasons_json: JSON.stringify(a.reasons),
      determining_json: JSON.stringify(a.determining),
      status: a.status,
      created_at: a.created_at,
      expires_at: a.expires_at,
      decided_at: a.decided_at,
      decided_by: a.decided_by,
    });
  }

  decideApproval(id: string, d: { status: 'approved' | 'denied'; by: string; at: number; expires_at: number }): ApprovalRecord | undefined {
    const changed = this.#decide.run(d.status, d.at, d.by, d.expires_at, id, d.at).changes;
    return changed === 1 ? this.getApproval(id) : undefined;
  }

  listApprovals(filter: { status?: ApprovalStatus; task?: TaskId }): ApprovalRecord[] {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.status !== undefined) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.task !== undefined) {
      where.push('task_id = ?');
      params.push(filter.task);
    }
    const sql = `SELECT * FROM policy_approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, rowid`;
    return this.#db.prepare<string[], ApprovalRow>(sql).all(...params).map(approvalOf);
  }
}

interface UsageRow {
  dimension: string;
  used: number;
  reserved: number;
}

class SqliteBudgetStore implements BudgetStore {
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

  constructor(db: Database) {
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

  reserve(req: Parameters<BudgetStore['reserve']>[0]): ReserveResult {
    // IMMEDIATE: two runtimes on one file cannot both pass the same last unit of a budget.
    return this.#reserve.immediate(req);
  }

  settle(id: string, actual: Usage): void {
    this.#finish.immediate(id, actual);
  }

  release(id: string): void {
    this.#finish.immediate(id, null);
  }

  usage(task: TaskId): Readonly<Record<BudgetDimension, BudgetUsageRow>> {
    const rows = this.#rows(task);
    return Object.fromEntries(BUDGET_DIMENSIONS.map((d) => [d, rows.get(d) ?? { used: 0, reserved: 0 }])) as Record<BudgetDimension, BudgetUsageRow>;
  }
}

class SqliteDenialStore implements DenialStore {
  readonly #count: Statement<[string, string], { count: number }>;
  readonly #record: Statement<[{ task: string; key: string; now: number }], { count: number }>;

  constructor(db: Database) {
    this.#count = db.prepare('SELECT count FROM policy_denials WHERE task_id = ? AND denial_key = ?');
    this.#record = db.prepare(
      `INSERT INTO policy_denials (task_id, denial_key, count, last_at) VALUES (@task, @key, 1, @now)
       ON CONFLICT (task_id, denial_key) DO UPDATE SET count = count + 1, last_at = @now
       RETURNING count`,
    );
  }

  denialCount(task: TaskId, key: string): number {
    return this.#count.get(task, key)?.count ?? 0;
  }

  recordDenial(task: TaskId, key: string, now: number): number {
    return (this.#record.get({ task, key, now }) as { count: number }).count;
  }
}

class SqliteGrantStore implements GrantStore {
  readonly #get: Statement<[string], { grant_json: string }>;
  readonly #put: Statement<[string, string, string, number]>;
  readonly #putIfAbsent: Transaction<(grant: Grant) => Grant>;

  constructor(db: Database) {
    this.#get = db.prepare('SELECT grant_json FROM policy_grants WHERE task_id = ?');
    this.#put = db.prepare('INSERT INTO policy_grants (task_id, digest, grant_json, created_at) VALUES (?, ?, ?, ?)');
    this.#putIfAbsent = db.transaction((grant: Grant): Grant => {
      const existing = this.getGrant(grant.subject.task_id);
      if (existing) return existing;
      this.#put.run(grant.subject.task_id, grantDigest(grant), JSON.stringify(grant), Date.now());
      return grant;
    });
  }

  getGrant(task: TaskId): Grant | undefined {
    const r = this.#get.get(task);
    return r && (JSON.parse(r.grant_json) as Grant);
  }

  putGrantIfAbsent(grant: Grant): Grant {
    return this.#putIfAbsent.immediate(grant);
  }
}

/** The policy stores over one open database; call `migratePolicyTables(db)` first. */
export function sqlitePolicyStores(db: Database): PolicyStores {
  return {
    grants: new SqliteGrantStore(db),
    approvals: new SqliteApprovalStore(db),
    budgets: new SqliteBudgetStore(db),
    denials: new SqliteDenialStore(db),
  };
}
