// The runtime each task started on and last ran on (docs/release.md#rollback), with the SQLite
// store's semantics (sqlite/task-runtimes.ts): one row per task, the note taken under its lock.
import type { Digest, TaskId } from '../../protocol/index.js';
import type { RuntimeNote } from '../types.js';
import type { Database } from './database.js';
import type { PostgresMigrationSet } from './migrations.js';

export const PG_TASK_RUNTIME_MIGRATIONS: PostgresMigrationSet = {
  name: 'task_runtimes',
  steps: [
    `
    CREATE TABLE task_runtimes (
      task_id TEXT PRIMARY KEY,
      started_on TEXT NOT NULL,
      last TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    `,
  ],
};

/** Inserts the row if absent, then reads it locked: of two hosts noting one task, the second sees the first's note. */
export function pgNoteRuntime(db: Database, task: TaskId, digest: Digest): Promise<RuntimeNote> {
  return db.transaction('record the task\'s runtime', async (tx) => {
    const now = new Date().toISOString();
    const inserted = await tx.query('INSERT INTO task_runtimes (task_id, started_on, last, created_at, updated_at) VALUES ($1, $2, $2, $3, $3) ON CONFLICT (task_id) DO NOTHING', [task, digest, now]);
    if (inserted.rowCount === 1) return { started_on: digest, previous: null };
    const row = (await tx.query<{ started_on: string; last: string }>('SELECT started_on, last FROM task_runtimes WHERE task_id = $1 FOR UPDATE', [task])).rows[0];
    if (!row) throw new Error(`task ${task}: its runtime row vanished inside a transaction`);
    if (row.last !== digest) await tx.query('UPDATE task_runtimes SET last = $1, updated_at = $2 WHERE task_id = $3', [digest, now, task]);
    return { started_on: row.started_on as Digest, previous: row.last as Digest };
  });
}

export async function pgRuntimeStartedOn(db: Database, task: TaskId): Promise<Digest | undefined> {
  return (await db.read<{ started_on: string }>('read the task', 'SELECT started_on FROM task_runtimes WHERE task_id = $1', [task])).rows[0]?.started_on as Digest | undefined;
}
