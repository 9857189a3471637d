import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Database as Db, Statement, Transaction } from 'better-sqlite3';
import type { Digest, Receipt, ReceiptId, TaskId } from '../../protocol/index.js';
import type { Manifest } from '../../registry/index.js';
import type { ChainReport, ClaimRequest, ClaimResult, CommitRequest, EffectRecord, EffectState, Store, TaskRecord } from '../types.js';
import { EffectTable } from './effects.js';
import { CORE_MIGRATIONS, migrate, type MigrationSet } from './migrations.js';
import { ReceiptTable } from './receipts.js';

export interface SqliteStoreOptions {
  /** Folder that holds `toolgate.db`; created when missing. */
  readonly dir: string;
  /**
   * `normal` (default): WAL with synchronous=NORMAL — a committed receipt survives a crash of
   * the process; a power loss may lose the last transactions. `full`: fsync at every commit.
   */
  readonly durability?: 'normal' | 'full';
  /** Extra migration sets of other layers (e.g. policy tables). */
  readonly migrations?: readonly MigrationSet[];
}

/** The embedded default store: one SQLite file for receipts, effects, tasks and the audit chain. */
export class SqliteStore implements Store {
  readonly db: Db;
  readonly path: string;
  /** This runtime instance's id, owner of the effect records it claims. */
  readonly instance: string;
  readonly #receipts: ReceiptTable;
  readonly #effects: EffectTable;
  readonly #task: Statement<[string], { task_id: string; registry_revision: string | null; created_at: string }>;
  readonly #manifest: Statement<[string], { manifest: string }>;
  readonly #revision: Statement<[], { revision: number }>;
  readonly #pin: Transaction<(task: TaskId, manifest: Manifest) => Manifest>;
  readonly #advance: Transaction<() => number>;

  constructor(opts: SqliteStoreOptions) {
    mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
    this.path = join(opts.dir, 'toolgate.db');
    this.db = new Database(this.path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${opts.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    migrate(this.db, [CORE_MIGRATIONS, ...(opts.migrations ?? [])]);
    this.instance = `rt_${randomUUID()}`;
    this.#receipts = new ReceiptTable(this.db);
    this.#effects = new EffectTable(this.db, this.instance);
    this.#task = this.db.prepare(`SELECT task_id, registry_revision, created_at FROM tasks WHERE task_id = ?`);
    this.#manifest = this.db.prepare(`SELECT manifest FROM registry_revisions WHERE revision = ?`);
    this.#revision = this.db.prepare(`SELECT revision FROM workspace_revision WHERE id = 1`);
    const saveManifest = this.db.prepare(`INSERT INTO registry_revisions (revision, manifest, created_at) VALUES (?, ?, ?) ON CONFLICT(revision) DO NOTHING`);
    const insertTask = this.db.prepare(`INSERT INTO tasks (task_id, registry_revision, created_at) VALUES (?, ?, ?) ON CONFLICT(task_id) DO NOTHING`);
    const setPin = this.db.prepare(`UPDATE tasks SET registry_revision = ? WHERE task_id = ? AND registry_revision IS NULL`);
    this.#pin = this.db.transaction((task: TaskId, manifest: Manifest): Manifest => {
      const now = new Date().toISOString();
      const existing = this.#task.get(task);
      if (existing?.registry_revision) {
        const stored = this.#manifest.get(existing.registry_revision);
        if (!stored) throw new Error(`task ${task} is pinned to an unknown registry revision ${existing.registry_revision}`);
        return JSON.parse(stored.manifest) as Manifest;
      }
      saveManifest.run(manifest.revision, JSON.stringify(manifest), now);
      insertTask.run(task, manifest.revision, now);
      setPin.run(manifest.revision, task);
      return manifest;
    });
    const bump = this.db.prepare<[], { revision: number }>(`UPDATE workspace_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision`);
    this.#advance = this.db.transaction(() => (bump.get() as { revision: number }).revision);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  // TaskStore
  pinTask(task: TaskId, manifest: Manifest): Manifest {
    return this.#pin.immediate(task, manifest);
  }
  getTask(task: TaskId): TaskRecord | undefined {
    const row = this.#task.get(task);
    if (!row || !row.registry_revision) return undefined;
    return { task_id: row.task_id as TaskId, registry_revision: row.registry_revision as Digest, created_at: row.created_at };
  }
  currentRevision(): number {
    return (this.#revision.get() as { revision: number }).revision;
  }
  advanceRevision(): number {
    return this.#advance.immediate();
  }

  // EffectStore
  findEffect(task: TaskId, key: string): EffectRecord | undefined {
    return this.#effects.find(task, key);
  }
  claim(req: ClaimRequest): ClaimResult {
    return this.#effects.claim(req);
  }
  markSent(task: TaskId, key: string): void {
    this.#effects.markSent(task, key);
  }
  settle(task: TaskId, key: string, state: 'released' | 'ambiguous' | 'completed'): void {
    this.#effects.settle(task, key, state);
  }
  listEffects(filter: { state?: EffectState; task?: TaskId }): EffectRecord[] {
    return this.#effects.list(filter);
  }

  // ReceiptStore
  commit(req: CommitRequest): Receipt {
    return this.#receipts.commit(req);
  }
  commitBatched(req: CommitRequest): Promise<Receipt> {
    return this.#receipts.commitBatched(req);
  }
  getReceipt(id: ReceiptId): Receipt | undefined {
    return this.#receipts.get(id);
  }
  listReceipts(filter: { task?: TaskId; limit?: number }): Receipt[] {
    return this.#receipts.list(filter);
  }
  verifyChain(task?: TaskId): ChainReport {
    return this.#receipts.verify(task);
  }
}
