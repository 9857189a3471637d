import type { Database } from './database.js';

/**
 * Versioned migrations of the PostgreSQL store, by named set like SQLite's (sqlite/migrations.ts):
 * a set's applied version is kept in `schema_migrations`. The same tables and columns as the
 * SQLite file, so that both stores keep (and `audit verify` reads) the same data.
 */
export interface PostgresMigrationSet {
  readonly name: string;
  readonly steps: readonly string[];
}

export const PG_CORE_MIGRATIONS: PostgresMigrationSet = {
  name: 'core',
  steps: [
    `
    CREATE TABLE registry_revisions (
      revision TEXT PRIMARY KEY,
      manifest TEXT NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE TABLE tasks (
      task_id TEXT PRIMARY KEY,
      registry_revision TEXT REFERENCES registry_revisions(revision),
      created_at TEXT NOT NULL,
      head_digest TEXT,
      receipt_count BIGINT NOT NULL DEFAULT 0
    );
    -- The body is the sealed canonical text, stored as is (never JSONB: it would be re-serialized).
    CREATE TABLE receipts (
      seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      receipt_id TEXT NOT NULL UNIQUE,
      task_id TEXT NOT NULL,
      logical_effect_id TEXT,
      idempotency_key TEXT,
      tool TEXT NOT NULL,
      status TEXT NOT NULL,
      created_at TEXT NOT NULL,
      digest TEXT NOT NULL,
      prev_digest TEXT,
      body TEXT NOT NULL
    );
    CREATE INDEX receipts_by_task ON receipts(task_id, seq);
    -- Insert-only: the database itself refuses to change or remove a receipt.
    CREATE FUNCTION receipts_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'receipts are immutable' USING ERRCODE = 'restrict_violation'; END;
    $$;
    CREATE TRIGGER receipts_immutable_row BEFORE UPDATE OR DELETE ON receipts
      FOR EACH ROW EXECUTE FUNCTION receipts_immutable();
    CREATE TRIGGER receipts_immutable_truncate BEFORE TRUNCATE ON receipts
      FOR EACH STATEMENT EXECUTE FUNCTION receipts_immutable();
    CREATE TABLE effects (
      seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
      task_id TEXT NOT NULL,
      effect_key TEXT NOT NULL,
      logical_effect_id TEXT,
      idempotency_key TEXT,
      args_digest TEXT NOT NULL,
      tool TEXT NOT NULL,
      tool_version TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('claimed', 'sent', 'completed', 'released', 'ambiguous')),
      attempt_id TEXT NOT NULL,
      owner TEXT NOT NULL,
      owner_pid INTEGER NOT NULL,
      owner_host TEXT NOT NULL,
      deadline BIGINT NOT NULL,
      receipt_id TEXT,
      intent TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (task_id, effect_key)
    );
    CREATE INDEX effects_by_state ON effects(state);
    CREATE TABLE workspace_revision (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      revision BIGINT NOT NULL
    );
    INSERT INTO workspace_revision (id, revision) VALUES (1, 0);
    `,
  ],
};

export const PG_POLICY_MIGRATIONS: PostgresMigrationSet = {
  name: 'policy',
  steps: [
    `
    CREATE TABLE policy_grants (
      task_id TEXT PRIMARY KEY,
      digest TEXT NOT NULL,
      grant_json TEXT NOT NULL,
      created_at BIGINT NOT NULL
    );
    CREATE TABLE policy_approvals (
      seq BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
      id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL,
      action_digest TEXT NOT NULL,
      policy_version TEXT NOT NULL,
      grant_digest TEXT NOT NULL,
      action_json TEXT NOT NULL,
      reasons_json TEXT NOT NULL,
      determining_json TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied')),
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      decided_at BIGINT,
      decided_by TEXT
    );
    CREATE INDEX policy_approvals_by_binding
      ON policy_approvals(task_id, action_digest, policy_version, grant_digest, created_at);
    CREATE TABLE policy_budget_usage (
      task_id TEXT NOT NULL,
      dimension TEXT NOT NULL,
      -- Doubles, like the JavaScript numbers (and SQLite's values): a measured use may be fractional.
      used DOUBLE PRECISION NOT NULL DEFAULT 0,
      reserved DOUBLE PRECISION NOT NULL DEFAULT 0,
      PRIMARY KEY (task_id, dimension)
    );
    CREATE TABLE policy_budget_reservations (
      id TEXT PRIMARY KEY,
      task_id TEXT NOT NULL,
      amounts_json TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('reserved', 'settled', 'released', 'abandoned')),
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL
    );
    CREATE INDEX policy_budget_reservations_open ON policy_budget_reservations(task_id, state, expires_at);
    CREATE TABLE policy_call_times (
      task_id TEXT NOT NULL,
      at BIGINT NOT NULL
    );
    CREATE INDEX policy_call_times_by_task ON policy_call_times(task_id, at);
    CREATE TABLE policy_denials (
      task_id TEXT NOT NULL,
      denial_key TEXT NOT NULL,
      count BIGINT NOT NULL,
      last_at BIGINT NOT NULL,
      PRIMARY KEY (task_id, denial_key)
    );
    `,
    // v2: the questions put to a person through an MCP client about an approval (their
    // requestState), each usable once (docs/approvals.md).
    `
    CREATE TABLE policy_approval_asks (
      id TEXT PRIMARY KEY,
      approval_id TEXT NOT NULL,
      task_id TEXT NOT NULL,
      action_digest TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      expires_at BIGINT NOT NULL,
      used_at BIGINT
    );
    CREATE INDEX policy_approval_asks_by_expiry ON policy_approval_asks(expires_at);
    `,
  ],
};

/** Key of the advisory lock migrations run under (any constant; "toolgate" in ASCII, truncated). */
const MIGRATION_LOCK = 0x746f6f6c6761;

/**
 * Applies every missing step of each set in one transaction, under a transaction-scoped
 * advisory lock: hosts starting at once take turns, and the second finds the schema current.
 * Refuses a database whose schema is newer than this Toolgate. Returns each set's version.
 */
export async function migratePostgres(db: Database, sets: readonly PostgresMigrationSet[]): Promise<Readonly<Record<string, number>>> {
  return db.transaction('migrate the schema', async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, version INTEGER NOT NULL)`);
    const versions: Record<string, number> = {};
    for (const m of sets) {
      const at = (await tx.query<{ version: number }>('SELECT version FROM schema_migrations WHERE name = $1', [m.name])).rows[0]?.version ?? 0;
      if (at > m.steps.length) throw new Error(`the PostgreSQL store has ${m.name} schema v${at}, newer than this Toolgate (v${m.steps.length})`);
      for (let v = at; v < m.steps.length; v++) await tx.query(m.steps[v] as string);
      if (at < m.steps.length) {
        await tx.query(`INSERT INTO schema_migrations (name, version) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET version = excluded.version`, [m.name, m.steps.length]);
      }
      versions[m.name] = m.steps.length;
    }
    return versions;
  });
}

/** The schema versions a database holds, without changing it (`toolgate doctor`); empty when none. */
export async function schemaVersions(db: Database): Promise<Readonly<Record<string, number>>> {
  const exists = (await db.query<{ t: string | null }>('check the schema', `SELECT to_regclass('schema_migrations')::text AS t`)).rows[0]?.t;
  if (!exists) return {};
  const rows = (await db.query<{ name: string; version: number }>('check the schema', 'SELECT name, version FROM schema_migrations')).rows;
  return Object.fromEntries(rows.map((r) => [r.name, r.version]));
}
