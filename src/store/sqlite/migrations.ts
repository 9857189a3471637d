import type { Database } from 'better-sqlite3';

/**
 * Versioned migrations, by named set, so that each layer that keeps tables (core, policy, …)
 * owns its own list. A set's applied version is kept in `schema_migrations`.
 */
export interface MigrationSet {
  readonly name: string;
  readonly steps: readonly string[];
}

export const CORE_MIGRATIONS: MigrationSet = {
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
      receipt_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE receipts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
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
    CREATE TRIGGER receipts_immutable_update BEFORE UPDATE ON receipts
      BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END;
    CREATE TRIGGER receipts_immutable_delete BEFORE DELETE ON receipts
      BEGIN SELECT RAISE(ABORT, 'receipts are immutable'); END;
    CREATE TABLE effects (
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
      deadline INTEGER NOT NULL,
      receipt_id TEXT,
      arguments TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (task_id, effect_key)
    );
    CREATE INDEX effects_by_state ON effects(state);
    CREATE TABLE workspace_revision (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      revision INTEGER NOT NULL
    );
    INSERT INTO workspace_revision (id, revision) VALUES (1, 0);
    `,
    // v2: the effect record kept every call's arguments unredacted (file contents, scripts,
    // env values, injected secrets). Keep only the digest and the tool's redacted intent. The
    // store runs with secure_delete, so the dropped values are zeroed, not left in free pages.
    `
    UPDATE effects SET arguments = '';
    ALTER TABLE effects DROP COLUMN arguments;
    ALTER TABLE effects ADD COLUMN intent TEXT;
    `,
  ],
};

export function migrate(db: Database, sets: readonly MigrationSet[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, version INTEGER NOT NULL)`);
  const get = db.prepare<[string], { version: number }>(`SELECT version FROM schema_migrations WHERE name = ?`);
  const set = db.prepare(`INSERT INTO schema_migrations (name, version) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version`);
  for (const m of sets) {
    const apply = db.transaction(() => {
      const at = get.get(m.name)?.version ?? 0;
      if (at > m.steps.length) throw new Error(`state database has ${m.name} schema v${at}, newer than this Toolgate (v${m.steps.length})`);
      for (let v = at; v < m.steps.length; v++) {
        db.exec(m.steps[v] as string);
        set.run(m.name, v + 1);
      }
    });
    apply.immediate();
  }
}
