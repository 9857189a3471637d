// The runtime each task started on and last ran on (docs/release.md#rollback), in a table of
// its own so that the tasks table and the receipt chain stay as they are.
import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { Digest, TaskId } from '../../protocol/index.js';
import type { RuntimeNote } from '../types.js';
import type { MigrationSet } from './migrations.js';

export const TASK_RUNTIME_MIGRATIONS: MigrationSet = {
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

export class SqliteTaskRuntimes {
  readonly #get: Statement<[string], { started_on: string; last: string }>;
  readonly #note: Transaction<(task: TaskId, digest: Digest) => RuntimeNote>;

  constructor(db: Database) {
    this.#get = db.prepare(`SELECT started_on, last FROM task_runtimes WHERE task_id = ?`);
    const insert = db.prepare(`INSERT INTO task_runtimes (task_id, started_on, last, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`);
    const update = db.prepare(`UPDATE task_runtimes SET last = ?, updated_at = ? WHERE task_id = ?`);
    this.#note = db.transaction((task: TaskId, digest: Digest): RuntimeNote => {
      const now = new Date().toISOString();
      const row = this.#get.get(task);
      if (!row) {
        insert.run(task, digest, digest, now, now);
        return { started_on: digest, previous: null };
      }
      if (row.last !== digest) update.run(digest, now, task);
      return { started_on: row.started_on as Digest, previous: row.last as Digest };
    });
  }

  /** IMMEDIATE: two runtimes noting one task from two processes are decided one after the other. */
  note(task: TaskId, digest: Digest): RuntimeNote {
    return this.#note.immediate(task, digest);
  }

  startedOn(task: TaskId): Digest | undefined {
    return this.#get.get(task)?.started_on as Digest | undefined;
  }
}
