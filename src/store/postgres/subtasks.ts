// The task tree of src/tasks on PostgreSQL, with the SQLite store's semantics: a spawn's check
// and insert hold the tree's advisory lock, a wait's cycle check and insert hold the wait-for
// graph's, so hosts sharing the database decide one after the other on the same rows.
import type { TaskId } from '../../protocol/index.js';
import type { SubtaskRow, SubtaskStore, WaitEdge } from '../types.js';
import type { Database } from './database.js';
import type { PostgresMigrationSet } from './migrations.js';

export const PG_SUBTASK_MIGRATIONS: PostgresMigrationSet = {
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
      record JSONB NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX subtasks_by_root ON subtasks(root_id);
    CREATE INDEX subtasks_by_parent ON subtasks(parent_id);
    CREATE TABLE task_waits (
      waiter TEXT NOT NULL,
      target TEXT NOT NULL,
      until_ms BIGINT NOT NULL,
      PRIMARY KEY (waiter, target)
    );
    `,
  ],
};

/** Advisory lock namespaces: one tree (second key: the root's hash), and the one wait-for graph. */
const TREE_LOCK = 0x74726565; // "tree"
const WAIT_LOCK = 0x77616974; // "wait"

interface Raw {
  task_id: string;
  parent_id: string;
  root_id: string;
  depth: number;
  state: string;
  token_digest: string;
  record: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'task_id, parent_id, root_id, depth, state, token_digest, record, created_at, updated_at';

function rowOf(r: Raw): SubtaskRow {
  return { ...r, task_id: r.task_id as TaskId, parent_id: r.parent_id as TaskId, root_id: r.root_id as TaskId };
}

export class PgSubtasks implements SubtaskStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  insertSubtask<R>(row: SubtaskRow, check: (tree: readonly SubtaskRow[]) => R | null): Promise<R | null> {
    return this.#db.transaction('spawn a subtask', async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TREE_LOCK, row.root_id]);
      const tree = (await tx.query<Raw>(`SELECT ${COLUMNS} FROM subtasks WHERE root_id = $1 ORDER BY created_at, task_id`, [row.root_id])).rows.map(rowOf);
      const refusal = check(tree);
      if (refusal !== null) return refusal;
      await tx.query(`INSERT INTO subtasks (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
        row.task_id,
        row.parent_id,
        row.root_id,
        row.depth,
        row.state,
        row.token_digest,
        JSON.stringify(row.record),
        row.created_at,
        row.updated_at,
      ]);
      return null;
    });
  }

  async getSubtask(task: TaskId): Promise<SubtaskRow | undefined> {
    const r = (await this.#db.read<Raw>('read a subtask', `SELECT ${COLUMNS} FROM subtasks WHERE task_id = $1`, [task])).rows[0];
    return r ? rowOf(r) : undefined;
  }

  async subtaskByToken(digest: string): Promise<SubtaskRow | undefined> {
    const r = (await this.#db.read<Raw>('read a subtask', `SELECT ${COLUMNS} FROM subtasks WHERE token_digest = $1`, [digest])).rows[0];
    return r ? rowOf(r) : undefined;
  }

  async listSubtasks(filter: { root?: TaskId; parent?: TaskId }): Promise<SubtaskRow[]> {
    const where = filter.root !== undefined ? 'WHERE root_id = $1' : filter.parent !== undefined ? 'WHERE parent_id = $1' : '';
    const values = filter.root ?? filter.parent;
    const rows = (await this.#db.read<Raw>('list subtasks', `SELECT ${COLUMNS} FROM subtasks ${where} ORDER BY created_at, task_id`, values === undefined ? [] : [values])).rows;
    return rows.map(rowOf).filter((r) => filter.parent === undefined || r.parent_id === filter.parent);
  }

  async updateSubtask(task: TaskId, from: readonly string[], state: string, record: Readonly<Record<string, unknown>>): Promise<boolean> {
    const r = await this.#db.query('update a subtask', `UPDATE subtasks SET state = $1, record = $2, updated_at = $3 WHERE task_id = $4 AND state = ANY($5::text[])`, [
      state,
      JSON.stringify(record),
      new Date().toISOString(),
      task,
      [...from],
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  addWaits<R>(edges: readonly WaitEdge[], now: number, check: (live: readonly WaitEdge[]) => R | null): Promise<R | null> {
    return this.#db.transaction('wait for tasks', async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1, 0)', [WAIT_LOCK]);
      await tx.query('DELETE FROM task_waits WHERE until_ms <= $1', [now]);
      const live = (await tx.query<{ waiter: string; target: string; until_ms: string }>('SELECT waiter, target, until_ms FROM task_waits')).rows.map((e) => ({
        waiter: e.waiter as TaskId,
        target: e.target as TaskId,
        until: Number(e.until_ms),
      }));
      const refusal = check(live);
      if (refusal !== null) return refusal;
      for (const e of edges) {
        await tx.query('INSERT INTO task_waits (waiter, target, until_ms) VALUES ($1, $2, $3) ON CONFLICT (waiter, target) DO UPDATE SET until_ms = EXCLUDED.until_ms', [e.waiter, e.target, e.until]);
      }
      return null;
    });
  }

  async removeWaits(waiter: TaskId, targets: readonly TaskId[]): Promise<void> {
    await this.#db.query('end a wait', 'DELETE FROM task_waits WHERE waiter = $1 AND target = ANY($2::text[])', [waiter, [...targets]]);
  }
}
