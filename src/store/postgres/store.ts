import type { Digest, Receipt, ReceiptId, TaskId } from '../../protocol/index.js';
import type { EffectIntent, Manifest } from '../../registry/index.js';
import type { ApprovalStore, BudgetStore, DenialStore, GrantStore } from '../../policy/index.js';
import { EffectOwner } from '../liveness.js';
import type { ChainReport, ClaimRequest, ClaimResult, CommitRequest, EffectRecord, EffectState, Store, SubtaskStore, RuntimeNote, TakeOver, TaskRecord, UnsettledEffect } from '../types.js';
import { Database } from './database.js';
import { PgEffectTable } from './effects.js';
import { migratePostgres } from './migrations.js';
import { PG_MIGRATION_SETS } from './schema-sets.js';
import { postgresPolicyStores } from './policy-tables.js';
import { ReceiptBatcher } from './receipt-batch.js';
import { PgReceiptTable } from './receipts.js';
import { pgSharedKey } from './keys.js';
import { PgSubtasks } from './subtasks.js';
import { pgNoteRuntime, pgRuntimeStartedOn } from './task-runtimes.js';
import { PgLedger } from './ledger.js';
import type { LedgerHead, LedgerStore } from '../ledger.js';

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` (a unix socket: `?host=/run/postgresql`). */
  readonly url: string;
  /** Connections this store instance opens at most (default 10). */
  readonly pool?: number;
  /** Names the connections in `pg_stat_activity` (default `toolgate`). */
  readonly applicationName?: string;
  /**
   * How this host names itself in the effect records it owns (default: the machine's hostname).
   * Hosts sharing the database must have different names, stable across restarts: a record of a
   * host with this one's name is judged by whether its pid runs here, which is only meaningful
   * on the machine that ran it.
   */
  readonly hostName?: string;
}

/**
 * The store shared by several hosts: one PostgreSQL database for receipts, effects, tasks and
 * the policy layer's state. Every commit is durable when answered (synchronous_commit on);
 * every failure of the database or the connection is `store_unavailable`.
 */
export class PostgresStore implements Store {
  /** This store instance as the owner of the effect records it claims. */
  readonly owner: EffectOwner;
  readonly grants: GrantStore;
  readonly approvals: ApprovalStore;
  readonly budgets: BudgetStore;
  readonly denials: DenialStore;
  readonly subtasks: SubtaskStore;
  readonly #db: Database;
  readonly #effects: PgEffectTable;
  readonly #receipts: PgReceiptTable;
  readonly #batcher: ReceiptBatcher;
  /** Registry revisions known to be stored (rows never change or go: tasks reference them). */
  readonly #storedRevisions = new Set<string>();

  readonly ledger: LedgerStore;

  private constructor(db: Database, hostName: string | undefined, onLedger: ((head: LedgerHead) => void) | undefined) {
    this.owner = new EffectOwner(undefined, hostName);
    this.#db = db;
    this.#effects = new PgEffectTable(db, this.owner);
    this.#receipts = new PgReceiptTable(db);
    this.#batcher = new ReceiptBatcher(db, onLedger);
    const ledger = new PgLedger(db);
    this.ledger = { ledgerHead: () => ledger.head(), ledgerAt: (pos) => ledger.at(pos), checkLedger: (at) => ledger.check(at) };
    this.subtasks = new PgSubtasks(db);
    ({ grants: this.grants, approvals: this.approvals, budgets: this.budgets, denials: this.denials } = postgresPolicyStores(db));
  }

  /** Connects and brings the schema up to date (under an advisory lock: hosts starting at once take turns). */
  static async open(opts: PostgresOptions & { readonly stateDir: string; readonly onLedger?: (head: LedgerHead) => void }): Promise<PostgresStore> {
    const db = new Database({ url: opts.url, pool: opts.pool ?? 10, stateDir: opts.stateDir, ...(opts.applicationName ? { applicationName: opts.applicationName } : {}) });
    try {
      await migratePostgres(db, PG_MIGRATION_SETS);
    } catch (e) {
      await db.close().catch(() => undefined);
      throw e;
    }
    return new PostgresStore(db, opts.hostName, opts.onLedger);
  }

  /** The continuation-token key every host shares (keys.ts). */
  sharedKey(name: string, adopt?: Buffer): Promise<Buffer> {
    return pgSharedKey(this.#db, name, adopt);
  }

  async close(): Promise<void> {
    // Receipts still queued get their answer before the connections go.
    await this.#batcher.idle();
    // Ending the connections has nothing left to lose: a failure here (a server already gone) is not the caller's.
    await this.#db.close().catch(() => undefined);
  }

  // TaskStore
  pinTask(task: TaskId, manifest: Manifest): Promise<Manifest> {
    return this.#db.transaction('pin the task', async (tx) => {
      const now = new Date().toISOString();
      await tx.query('INSERT INTO tasks (task_id, created_at) VALUES ($1, $2) ON CONFLICT (task_id) DO NOTHING', [task, now]);
      const pinned = (await tx.query<{ registry_revision: string | null }>('SELECT registry_revision FROM tasks WHERE task_id = $1 FOR UPDATE', [task])).rows[0]?.registry_revision;
      if (pinned) {
        const stored = (await tx.query<{ manifest: string }>('SELECT manifest FROM registry_revisions WHERE revision = $1', [pinned])).rows[0];
        if (!stored) throw new Error(`task ${task} is pinned to an unknown registry revision ${pinned}`);
        return JSON.parse(stored.manifest) as Manifest;
      }
      // A revision's row never changes once stored (it is named by the manifest's digest): one
      // this store has seen committed is not sent again (70 KB a new task).
      if (!this.#storedRevisions.has(manifest.revision)) {
        await tx.query('INSERT INTO registry_revisions (revision, manifest, created_at) VALUES ($1, $2, $3) ON CONFLICT (revision) DO NOTHING', [manifest.revision, JSON.stringify(manifest), now]);
      }
      await tx.query('UPDATE tasks SET registry_revision = $1 WHERE task_id = $2', [manifest.revision, task]);
      return manifest;
    }).then((m) => {
      this.#storedRevisions.add(m.revision);
      return m;
    });
  }
  async getTask(task: TaskId): Promise<TaskRecord | undefined> {
    const row = (await this.#db.read<{ task_id: string; registry_revision: string | null; created_at: string }>('read the task', 'SELECT task_id, registry_revision, created_at FROM tasks WHERE task_id = $1', [task])).rows[0];
    if (!row || !row.registry_revision) return undefined;
    const runtime = await pgRuntimeStartedOn(this.#db, task);
    return { task_id: row.task_id as TaskId, registry_revision: row.registry_revision as Digest, created_at: row.created_at, ...(runtime ? { runtime_digest: runtime } : {}) };
  }
  noteRuntime(task: TaskId, digest: Digest): Promise<RuntimeNote> {
    return pgNoteRuntime(this.#db, task, digest);
  }
  async currentRevision(): Promise<number> {
    return ((await this.#db.read<{ revision: number }>('read the revision', 'SELECT revision FROM workspace_revision WHERE id = 1')).rows[0] as { revision: number }).revision;
  }
  async advanceRevision(): Promise<number> {
    const r = await this.#db.query<{ revision: number }>('advance the revision', 'UPDATE workspace_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision');
    return (r.rows[0] as { revision: number }).revision;
  }

  // EffectStore
  findEffect(task: TaskId, key: string): Promise<EffectRecord | undefined> {
    return this.#effects.find(task, key);
  }
  inspect(req: ClaimRequest): Promise<ClaimResult> {
    return this.#effects.inspect(req);
  }
  claim(req: ClaimRequest): Promise<ClaimResult> {
    return this.#effects.claim(req);
  }
  markSent(task: TaskId, key: string, intent: EffectIntent | null): Promise<void> {
    return this.#effects.markSent(task, key, intent);
  }
  settle(task: TaskId, key: string, state: 'released' | 'ambiguous' | 'completed'): Promise<void> {
    return this.#effects.settle(task, key, state);
  }
  async letGo(task: TaskId, key: string): Promise<void> {
    this.#effects.letGo(task, key);
  }
  listEffects(filter: { state?: EffectState; task?: TaskId }): Promise<EffectRecord[]> {
    return this.#effects.list(filter);
  }
  listUnsettled(): Promise<UnsettledEffect[]> {
    return this.#effects.listUnsettled();
  }
  takeOver(task: TaskId, key: string): Promise<TakeOver> {
    return this.#effects.takeOver(task, key);
  }

  /** What group commit achieved so far (tests, benchmarks): receipts and the transactions that wrote them. */
  commitStats(): { readonly receipts: number; readonly batches: number } {
    return this.#batcher.stats();
  }

  // ReceiptStore
  /** Group commit: the receipt as stored, once durable. */
  commit(req: CommitRequest): Promise<Receipt> {
    return this.#batcher.commit(req);
  }
  getReceipt(id: ReceiptId): Promise<Receipt | undefined> {
    return this.#receipts.get(id);
  }
  listReceipts(filter: { task?: TaskId; limit?: number }): Promise<Receipt[]> {
    return this.#receipts.list(filter);
  }
  verifyChain(task?: TaskId): Promise<ChainReport> {
    return this.#receipts.verify(task);
  }
}
