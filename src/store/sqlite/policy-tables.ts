// The policy layer's durable state in the runtime's SQLite file: issued grants, approval
// requests, budget usage and reservations, call times (rate), and denial counts.
import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { TaskId } from '../../protocol/index.js';
import { grantDigest, type DenialStore, type Grant, type GrantStore, type PolicyStores } from '../../policy/index.js';
import { SqliteApprovalStore } from './policy-approvals.js';
import { SqliteBudgetStore } from './policy-budgets.js';

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

// v2: the questions put to a person through an MCP client about an approval (their
// requestState), each usable once (docs/approvals.md).
const APPROVAL_ASKS_SQL = `
CREATE TABLE IF NOT EXISTS policy_approval_asks (
  id TEXT PRIMARY KEY,
  approval_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  action_digest TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE INDEX IF NOT EXISTS policy_approval_asks_by_expiry ON policy_approval_asks(expires_at);
`;

/** The same tables as migration steps, for the store's versioned migration sets. */
export const POLICY_MIGRATIONS = { name: 'policy', steps: [POLICY_TABLES_SQL, APPROVAL_ASKS_SQL] } as const;

/** Creates the policy tables when missing. Safe to call on every open. */
export function migratePolicyTables(db: Database): void {
  for (const step of POLICY_MIGRATIONS.steps) db.exec(step);
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

  async denialCount(task: TaskId, key: string): Promise<number> {
    return this.#count.get(task, key)?.count ?? 0;
  }

  async recordDenial(task: TaskId, key: string, now: number): Promise<number> {
    return (this.#record.get({ task, key, now }) as { count: number }).count;
  }
}

class SqliteGrantStore implements GrantStore {
  readonly #get: Statement<[string], { grant_json: string }>;
  readonly #put: Statement<[string, string, string, number]>;
  readonly #putIfAbsent: Transaction<(grant: Grant) => Grant>;
  readonly #relaxed: <T>(run: () => T) => T;

  constructor(db: Database, relaxed: <T>(run: () => T) => T) {
    this.#relaxed = relaxed;
    this.#get = db.prepare('SELECT grant_json FROM policy_grants WHERE task_id = ?');
    this.#put = db.prepare('INSERT INTO policy_grants (task_id, digest, grant_json, created_at) VALUES (?, ?, ?, ?)');
    this.#putIfAbsent = db.transaction((grant: Grant): Grant => {
      const existing = this.#read(grant.subject.task_id);
      if (existing) return existing;
      this.#put.run(grant.subject.task_id, grantDigest(grant), JSON.stringify(grant), Date.now());
      return grant;
    });
  }

  #read(task: TaskId): Grant | undefined {
    const r = this.#get.get(task);
    return r && (JSON.parse(r.grant_json) as Grant);
  }

  async getGrant(task: TaskId): Promise<Grant | undefined> {
    return this.#read(task);
  }

  async putGrantIfAbsent(grant: Grant): Promise<Grant> {
    // Always followed by the receipt of the call that needed the grant (authorize, task.spawn
    // after its intent): that receipt's sync covers it.
    return this.#relaxed(() => this.#putIfAbsent.immediate(grant));
  }
}

/** The policy stores over one open database; call `migratePolicyTables(db)` first. */
/** `relaxed` writes a transaction whose durability a later sync covers (wal-sync.ts); default: as is. */
export function sqlitePolicyStores(db: Database, relaxed: <T>(run: () => T) => T = (run) => run()): PolicyStores {
  return {
    grants: new SqliteGrantStore(db, relaxed),
    approvals: new SqliteApprovalStore(db),
    budgets: new SqliteBudgetStore(db, relaxed),
    denials: new SqliteDenialStore(db),
  };
}
