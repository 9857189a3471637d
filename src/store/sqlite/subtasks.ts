// The task tree of src/tasks on SQLite: one row per subtask, and the wait-for graph's edges.
// Each check runs inside an IMMEDIATE transaction, so two spawns (or two waits) from different
// processes on one file are decided one after the other, never on the same stale rows.
import type { Database, Statement } from 'better-sqlite3';
import type { TaskId } from '../../protocol/index.js';
import type { SubtaskRow, SubtaskStore, WaitEdge } from '../types.js';
import type { MigrationSet } from './migrations.js';

export const SUBTASK_MIGRATIONS: MigrationSet = {
  name: 'subtasks',
  steps: [
    `
    CREATE TABLE subtasks (
      task_id TEXT PRIMARY KEY,
      parent_id TEXT NOT NULL,
      root_id TEXT NOT NULL,
      depth INTEGER NOT NULL,
      state TEXT NOT NULL,
      token_digest TEXT NOT NULL UNIQUE,
      record TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX subtasks_by_root ON subtasks(root_id);
    CREATE INDEX subtasks_by_parent ON subtasks(parent_id);
    CREATE TABLE task_waits (
      waiter TEXT NOT NULL,
      target TEXT NOT NULL,
      until_ms INTEGER NOT NULL,
      PRIMARY KEY (waiter, target)
    );
    `,
  ],
};

interface Raw {
  task_id: string;
  parent_id: string;
  root_id: string;
  depth: number;
  state: string;
  token_digest: string;
  record: string;
  created_at: string;
  updated_at: string;
}

function rowOf(r: Raw): SubtaskRow {
  return { ...r, task_id: r.task_id as TaskId, parent_id: r.parent_id as TaskId, root_id: r.root_id as TaskId, record: JSON.parse(r.record) as Record<string, unknown> };
}

const COLUMNS = 'task_id, parent_id, root_id, depth, state, token_digest, record, created_at, updated_at';

export class SqliteSubtasks implements SubtaskStore {
  readonly #db: Database;
  readonly #byId: Statement<[string], Raw>;
  readonly #byToken: Statement<[string], Raw>;
  readonly #byRoot: Statement<[string], Raw>;
  readonly #byParent: Statement<[string], Raw>;
  readonly #all: Statement<[], Raw>;
  readonly #insert: Statement<[string, string, string, number, string, string, string, string, string]>;
  readonly #update: Statement<[string, string, string, string]>;
  readonly #liveWaits: Statement<[number], { waiter: string; target: string; until_ms: number }>;
  readonly #dropExpired: Statement<[number]>;
  readonly #addWait: Statement<[string, string, number]>;
  readonly #removeWait: Statement<[string, string]>;

  constructor(db: Database) {
    this.#db = db;
    this.#byId = db.prepare(`SELECT ${COLUMNS} FROM subtasks WHERE task_id = ?`);
    this.#byToken = db.prepare(`SELECT ${COLUMNS} FROM subtasks WHERE token_digest = ?`);
    this.#byRoot = db.prepare(`SELECT ${COLUMNS} FROM subtasks WHERE root_id = ? ORDER BY created_at, task_id`);
    this.#byParent = db.prepare(`SELECT ${COLUMNS} FROM subtasks WHERE parent_id = ? ORDER BY created_at, task_id`);
    this.#all = db.prepare(`SELECT ${COLUMNS} FROM subtasks ORDER BY created_at, task_id`);
    this.#insert = db.prepare(`INSERT INTO subtasks (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.#update = db.prepare(`UPDATE subtasks SET state = ?, record = ?, updated_at = ? WHERE task_id = ?`);
    this.#liveWaits = db.prepare(`SELECT waiter, target, until_ms FROM task_waits WHERE until_ms > ?`);
    this.#dropExpired = db.prepare(`DELETE FROM task_waits WHERE until_ms <= ?`);
    this.#addWait = db.prepare(`INSERT INTO task_waits (waiter, target, until_ms) VALUES (?, ?, ?) ON CONFLICT(waiter, target) DO UPDATE SET until_ms = excluded.until_ms`);
    this.#removeWait = db.prepare(`DELETE FROM task_waits WHERE waiter = ? AND target = ?`);
  }

  async insertSubtask<R>(row: SubtaskRow, check: (tree: readonly SubtaskRow[]) => R | null): Promise<R | null> {
    return this.#db
      .transaction((): R | null => {
        const refusal = check(this.#byRoot.all(row.root_id).map(rowOf));
        if (refusal !== null) return refusal;
        this.#insert.run(row.task_id, row.parent_id, row.root_id, row.depth, row.state, row.token_digest, JSON.stringify(row.record), row.created_at, row.updated_at);
        return null;
      })
      .immediate();
  }

  async getSubtask(task: TaskId): Promise<SubtaskRow | undefined> {
    const r = this.#byId.get(task);
    return r ? rowOf(r) : undefined;
  }

  async subtaskByToken(digest: string): Promise<SubtaskRow | undefined> {
    const r = this.#byToken.get(digest);
    return r ? rowOf(r) : undefined;
  }

  async listSubtasks(filter: { root?: TaskId; parent?: TaskId }): Promise<SubtaskRow[]> {
    const rows = filter.root !== undefined ? this.#byRoot.all(filter.root) : filter.parent !== undefined ? this.#byParent.all(filter.parent) : this.#all.all();
    return rows.map(rowOf).filter((r) => filter.parent === undefined || r.parent_id === filter.parent);
  }

  async updateSubtask(task: TaskId, from: readonly string[], state: string, record: Readonly<Record<string, unknown>>): Promise<boolean> {
    return this.#db
      .transaction((): boolean => {
        const now = this.#byId.get(task);
        if (!now || !from.includes(now.state)) return false;
        this.#update.run(state, JSON.stringify(record), new Date().toISOString(), task);
        return true;
      })
      .immediate();
  }

  async addWaits<R>(edges: readonly WaitEdge[], now: number, check: (live: readonly WaitEdge[]) => R | null): Promise<R | null> {
    return this.#db
      .transaction((): R | null => {
        this.#dropExpired.run(now);
        const live = this.#liveWaits.all(now).map((e) => ({ waiter: e.waiter as TaskId, target: e.target as TaskId, until: e.until_ms }));
        const refusal = check(live);
        if (refusal !== null) return refusal;
        for (const e of edges) this.#addWait.run(e.waiter, e.target, e.until);
        return null;
      })
      .immediate();
  }

  async removeWaits(waiter: TaskId, targets: readonly TaskId[]): Promise<void> {
    this.#db.transaction(() => {
      for (const t of targets) this.#removeWait.run(waiter, t);
    })();
  }
}
