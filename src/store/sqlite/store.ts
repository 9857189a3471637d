import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database as Db, Statement, Transaction } from 'better-sqlite3';
import { failpoint, type Digest, type Receipt, type ReceiptId, type TaskId } from '../../protocol/index.js';
import type { Manifest } from '../../registry/index.js';
import type { EffectIntent } from '../../registry/index.js';
import type { ApprovalStore, BudgetStore, DenialStore, GrantStore } from '../../policy/index.js';
import { EffectOwner } from '../liveness.js';
import type { ChainReport, ClaimRequest, ClaimResult, CommitOptions, CommitRequest, EffectRecord, EffectState, Store, SubtaskStore, TakeOver, RuntimeNote, TaskRecord, UnsettledEffect } from '../types.js';
import { EffectTable } from './effects.js';
import { CORE_MIGRATIONS, migrate, type MigrationSet } from './migrations.js';
import { POLICY_MIGRATIONS, sqlitePolicyStores } from './policy-tables.js';
import { ReceiptTable } from './receipts.js';
import { ReceiptWriterClient, writerError } from './receipt-writer-client.js';
import { ReceiptChain } from './receipt-chain.js';
import { CHECKPOINT_FRAMES, tailLeft, WalFile, WalIndex } from './wal.js';
import { KEY_MIGRATIONS, SqliteSharedKeys } from './shared-keys.js';
import { LEDGER_MIGRATIONS, SqliteLedger } from './ledger.js';
import type { LedgerHead, LedgerReport, LedgerStore } from '../ledger.js';
import { SqliteSubtasks, SUBTASK_MIGRATIONS } from './subtasks.js';
import { SqliteTaskRuntimes, TASK_RUNTIME_MIGRATIONS } from './task-runtimes.js';
import { guarded, storeFailure } from './unavailable.js';

export interface SqliteOptions {
  /**
   * `full` (default): WAL; the intent row and each receipt are fsync'ed (the WAL, by the
   * receipt writer's thread) before they are answered, so a receipt returned as succeeded
   * survives a power loss or a failing file system; group commit shares one fsync among
   * concurrent calls. Other policy rows are written with synchronous=FULL.
   * `normal` (opt-in): synchronous=NORMAL — survives a crash of the process only; a power
   * loss or a file system failure may lose the last receipts already returned as succeeded
   * (and an intent row, so an effect can happen with no record of it).
   */
  readonly durability?: 'normal' | 'full';
  /** Extra migration sets of other layers (the policy tables are always there). */
  readonly migrations?: readonly MigrationSet[];
}

export interface SqliteStoreOptions extends SqliteOptions {
  /** Folder that holds `toolgate.db`; created when missing. */
  readonly dir: string;
  /** Told the ledger head after each durable commit (StoreContext.onLedger). */
  readonly onLedger?: (head: LedgerHead) => void;
}

/** How long processes opening one new file together may keep each other from switching it to WAL. */
const WAL_SWITCH_BOUND_MS = 10_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Switches the file to WAL. The switch takes an exclusive lock, and when two processes open one
 * new file at the same moment each holds the shared lock the other waits for: SQLite answers
 * SQLITE_BUSY at once instead of waiting (its busy handler would deadlock), so two hosts started
 * together on one state folder lost one of them. The switch is retried, with a short pause,
 * until it succeeds or the bound passes; once the file is in WAL mode it stays so and the
 * pragma no longer needs the lock.
 */
function enterWal(db: Db): void {
  const until = Date.now() + WAL_SWITCH_BOUND_MS;
  for (let wait = 2; ; wait = Math.min(wait * 2, 100)) {
    try {
      const mode = String(db.pragma('journal_mode = WAL', { simple: true }));
      if (mode === 'wal') return;
      throw new Error(`the database stayed in journal mode ${mode}, not wal`);
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > until) throw e;
      Atomics.wait(pause, 0, 0, wait + Math.floor(Math.random() * wait));
    }
  }
}

/** Where the event loop's connection checkpoints the WAL: only if the receipt writer (at 1,000 frames, CHECKPOINT_FRAMES) has not. */
const EVENT_LOOP_CHECKPOINT_FRAMES = 10_000;

/** The embedded default store: one SQLite file for receipts, effects, tasks and the audit chain. */
export class SqliteStore implements Store {
  readonly db: Db;
  readonly path: string;
  /** This store instance as the owner of the effect records it claims. */
  readonly owner = new EffectOwner();
  readonly grants: GrantStore;
  readonly approvals: ApprovalStore;
  readonly budgets: BudgetStore;
  readonly denials: DenialStore;
  readonly subtasks: SubtaskStore;
  readonly ledger: LedgerStore;
  readonly #receipts: ReceiptTable;
  readonly #effects: EffectTable;
  readonly #keys: SqliteSharedKeys;
  readonly #runtimes: SqliteTaskRuntimes;
  readonly #task: Statement<[string], { task_id: string; registry_revision: string | null; created_at: string }>;
  readonly #manifest: Statement<[string], { manifest: string }>;
  readonly #revision: Statement<[], { revision: number }>;
  readonly #pin: Transaction<(task: TaskId, manifest: Manifest) => Manifest>;
  readonly #advance: Transaction<() => number>;

  readonly #dir: string;
  /** Seals, appends and syncs receipts on a worker thread (receipt-writer.ts). */
  readonly #writer: ReceiptWriterClient;
  /** Runs a write transaction without SQLite's own fsync (durability full: a writer sync covers it). */
  readonly #relaxed: <T>(run: () => T) => T;
  /** A lone call's receipt, appended on this connection (commitHere). */
  readonly #chain: ReceiptChain;
  /** The WAL, synced by commitHere (durability full); null with `normal`. */
  readonly #wal: WalFile | null;
  readonly #walIndex: WalIndex;
  /** The WAL's frames when this connection last asked the writer to checkpoint; -1 when not since it started over. */
  #askedAt = -1;
  /** After the last lone commit, a checkpoint had left frames behind (wal.ts tailLeft). */
  #tail = false;

  constructor(opts: SqliteStoreOptions) {
    this.#dir = opts.dir;
    this.path = join(opts.dir, 'toolgate.db');
    this.db = guarded('open the database', opts.dir, () => {
      mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
      const db = new Database(this.path);
      try {
        enterWal(db);
        db.pragma(`synchronous = ${opts.durability === 'normal' ? 'NORMAL' : 'FULL'}`);
        db.pragma('busy_timeout = 5000');
        db.pragma('foreign_keys = ON');
        // Deleted and overwritten values are zeroed, not left readable in free pages.
        db.pragma('secure_delete = ON');
        const before = db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'schema_migrations'`).get()?.n ?? 0;
        migrate(db, [CORE_MIGRATIONS, POLICY_MIGRATIONS, KEY_MIGRATIONS, SUBTASK_MIGRATIONS, TASK_RUNTIME_MIGRATIONS, LEDGER_MIGRATIONS, ...(opts.migrations ?? []).filter((m) => ![POLICY_MIGRATIONS.name, KEY_MIGRATIONS.name, SUBTASK_MIGRATIONS.name, TASK_RUNTIME_MIGRATIONS.name, LEDGER_MIGRATIONS.name].includes(m.name))]);
        // A migration that dropped values must not leave them in the WAL either.
        if (before > 0) db.pragma('wal_checkpoint(TRUNCATE)');
        // SQLite checkpoints (copies the WAL into the database file and fsyncs that: ~1 ms of fsync alone here, more on a large store) inside
        // whichever commit leaves the WAL past the mark. On this connection that commit runs on
        // the event loop: an fs.write's intent row crossed it in 56 of 4,000 calls. The receipt
        // writer checkpoints at SQLite's mark (1,000 frames), outside its commits
        // (receipt-writer.ts); this connection checkpoints only past ten times that, when the
        // writer has not.
        db.pragma(`wal_autocheckpoint = ${EVENT_LOOP_CHECKPOINT_FRAMES}`);
        return db;
      } catch (e) {
        db.close();
        throw e;
      }
    });
    this.#writer = new ReceiptWriterClient({ path: this.path, durability: opts.durability === 'normal' ? 'normal' : 'full' }, opts.onLedger);
    this.#writer.warm();
    this.#receipts = new ReceiptTable(this.db);
    this.#effects = new EffectTable(this.db, this.owner);
    this.#keys = new SqliteSharedKeys(this.db);
    this.subtasks = new SqliteSubtasks(this.db);
    this.#runtimes = new SqliteTaskRuntimes(this.db);
    const ledger = new SqliteLedger(this.db);
    this.ledger = {
      ledgerHead: async () => this.#guard('read the ledger', () => ledger.head()),
      ledgerAt: async (pos) => this.#guard('read the ledger', () => ledger.at(pos)),
      checkLedger: async (at): Promise<LedgerReport & { readonly at: ReadonlyMap<number, string> }> => this.#guard('check the ledger', () => ledger.check(at)),
    };
    const db = this.db;
    const full = opts.durability !== 'normal';
    // A budget settle or release, a task's grant or pin is always followed by its call's receipt,
    // whose sync (the writer's fdatasync of the WAL, after this write) makes it durable too: no
    // fsync of its own.
    const relaxed = (this.#relaxed = <T>(run: () => T): T => {
      if (!full) return run();
      db.exec('PRAGMA synchronous = NORMAL'); // exec: SQLite applies this pragma when prepared, not when run
      try {
        return run();
      } finally {
        db.exec('PRAGMA synchronous = FULL');
      }
    });
    ({ grants: this.grants, approvals: this.approvals, budgets: this.budgets, denials: this.denials } = sqlitePolicyStores(db, relaxed));
    this.#chain = new ReceiptChain(db);
    this.#wal = full ? new WalFile(`${this.path}-wal`) : null;
    this.#walIndex = new WalIndex(this.path);
    this.#task = this.db.prepare(`SELECT task_id, registry_revision, created_at FROM tasks WHERE task_id = ?`);
    this.#manifest = this.db.prepare(`SELECT manifest FROM registry_revisions WHERE revision = ?`);
    this.#revision = this.db.prepare(`SELECT revision FROM workspace_revision WHERE id = 1`);
    const saveManifest = this.db.prepare(`INSERT INTO registry_revisions (revision, manifest, created_at) VALUES (?, ?, ?) ON CONFLICT(revision) DO NOTHING`);
    // A revision is named by its manifest's digest and its row is never changed: one already
    // stored is not serialized again (a 70 KB JSON.stringify and insert, about half of a new
    // task's first call).
    const hasManifest = this.db.prepare<[string], { one: number }>(`SELECT 1 AS one FROM registry_revisions WHERE revision = ?`);
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
      if (hasManifest.get(manifest.revision) === undefined) saveManifest.run(manifest.revision, JSON.stringify(manifest), now);
      insertTask.run(task, manifest.revision, now);
      setPin.run(manifest.revision, task);
      return manifest;
    });
    const bump = this.db.prepare<[], { revision: number }>(`UPDATE workspace_revision SET revision = revision + 1 WHERE id = 1 RETURNING revision`);
    this.#advance = this.db.transaction(() => (bump.get() as { revision: number }).revision);
  }

  async close(): Promise<void> {
    // Receipts still being written get their answer before the connection goes.
    await this.#writer.close().catch(() => undefined);
    this.#wal?.close();
    this.#walIndex.close();
    if (this.db.open) this.db.close();
  }

  /**
   * A receipt a read hands on must be durable: one the writer has written but not yet synced is
   * already visible to this connection. Only such reads wait (until no commit is pending); the
   * others do not, so that a call's examine stage never waits on another call's receipt.
   */
  async #durable<T>(value: T, handsOnReceipt: (v: T) => boolean = () => true): Promise<T> {
    if (handsOnReceipt(value)) await this.#writer.idle();
    return value;
  }

  #guard<T>(operation: string, run: () => T): T {
    return guarded(operation, this.#dir, run);
  }

  async sharedKey(name: string, adopt?: Buffer): Promise<Buffer> {
    return this.#guard('load the shared key', () => this.#keys.getOrCreate(name, adopt));
  }

  // TaskStore
  async pinTask(task: TaskId, manifest: Manifest): Promise<Manifest> {
    // No fsync of its own (it was two on the event loop for each new task, with the grant): the
    // call that pinned the task commits its receipt next, whose sync covers this.
    return this.#guard('pin the task', () => this.#relaxed(() => this.#pin.immediate(task, manifest)));
  }
  async getTask(task: TaskId): Promise<TaskRecord | undefined> {
    const row = this.#guard('read the task', () => this.#task.get(task));
    if (!row || !row.registry_revision) return undefined;
    const runtime = this.#guard('read the task', () => this.#runtimes.startedOn(task));
    return { task_id: row.task_id as TaskId, registry_revision: row.registry_revision as Digest, created_at: row.created_at, ...(runtime ? { runtime_digest: runtime } : {}) };
  }
  async noteRuntime(task: TaskId, digest: Digest): Promise<RuntimeNote> {
    // No fsync of its own: the receipt of the call that noted it syncs the WAL next (like advanceRevision).
    return this.#guard('record the task\'s runtime', () => this.#relaxed(() => this.#runtimes.note(task, digest)));
  }
  async currentRevision(): Promise<number> {
    return this.#guard('read the revision', () => (this.#revision.get() as { revision: number }).revision);
  }
  async advanceRevision(): Promise<number> {
    // No fsync of its own: the call that moved the workspace commits its receipt next, whose sync covers this.
    return this.#guard('advance the revision', () => this.#relaxed(() => this.#advance.immediate()));
  }

  // EffectStore
  async findEffect(task: TaskId, key: string): Promise<EffectRecord | undefined> {
    return this.#durable(this.#guard('read the effect record', () => this.#effects.find(task, key)), (r) => r?.state === 'completed');
  }
  async inspect(req: ClaimRequest): Promise<ClaimResult> {
    return this.#durable(this.#guard('examine the effect record', () => this.#effects.inspect(req)), (r) => r.kind === 'replay');
  }
  async claim(req: ClaimRequest): Promise<ClaimResult> {
    // A claim needs no fsync of its own: nothing is sent before markSent, whose sync covers it
    // (a claim lost with the power is a call that never started, and its retry runs).
    return this.#durable(this.#guard('record the intent', () => this.#relaxed(() => this.#effects.claim(req))), (r) => r.kind === 'replay');
  }
  async markSent(task: TaskId, key: string, intent: EffectIntent | null): Promise<void> {
    // The intent is durable before the tool may start its effect; the fsync runs on the receipt
    // writer's thread (with any receipts of the moment), not on the event loop.
    this.#guard('record that the effect is sent', () => this.#relaxed(() => this.#effects.markSent(task, key, intent)));
    await this.#writer.sync().catch((e: unknown) => Promise.reject(storeFailure(e, 'record that the effect is sent', this.#dir)));
  }
  async settle(task: TaskId, key: string, state: 'released' | 'ambiguous' | 'completed'): Promise<void> {
    this.#guard('settle the effect record', () => this.#effects.settle(task, key, state));
  }
  async letGo(task: TaskId, key: string): Promise<void> {
    this.#effects.letGo(task, key);
  }
  async listEffects(filter: { state?: EffectState; task?: TaskId }): Promise<EffectRecord[]> {
    return this.#guard('list effect records', () => this.#effects.list(filter));
  }
  async listUnsettled(): Promise<UnsettledEffect[]> {
    return this.#guard('list effect records', () => this.#effects.listUnsettled());
  }
  async takeOver(task: TaskId, key: string): Promise<TakeOver> {
    return this.#durable(this.#guard('take over the effect record', () => this.#effects.takeOver(task, key)), (r) => r.kind !== 'absent' && r.record.state === 'completed');
  }

  /** What group commit achieved so far (tests, benchmarks): receipts, transactions, WAL syncs, and lone calls' commits on the event loop (`here`). */
  writerStats(): { readonly receipts: number; readonly batches: number; readonly syncs: number; readonly here: number } {
    return this.#writer.stats();
  }

  // ReceiptStore
  /** Group commit on the receipt writer, or a lone call's on this thread: the receipt as stored, once durable. */
  commit(req: CommitRequest, opts: CommitOptions = {}): Promise<Receipt> {
    let copyTail = false;
    if (opts.alone === true) {
      try {
        const here = this.#commitHere(req);
        if (here === 'tail') copyTail = true;
        else if (here !== null) return Promise.resolve(here);
      } catch (e) {
        return Promise.reject(storeFailure(e, 'commit the receipt', this.#dir));
      }
    }
    return this.#writer.commit(req, copyTail).catch((e: unknown) => Promise.reject(storeFailure(e, 'commit the receipt', this.#dir)));
  }

  /**
   * A lone call's receipt, committed and synced on the event loop: the same transaction and
   * fdatasync the writer would run, without the two thread hand-offs (a thread waking on an
   * idle core, ~70 µs each here) that group commit costs when no other commit can join it.
   * Holds the event loop for the transaction and the sync (~0.1 + 0.15–0.3 ms here) while no
   * other call of the runtime is in flight. null (the writer takes it) when the writer has work
   * (a batch cannot interleave) or when another connection holds the write lock (no wait on the
   * event loop). `tail` (the writer takes it, and checkpoints first) when a checkpoint that ran
   * beside the lone commits before it left their frames. A WAL left past the checkpoint mark is
   * the writer's to checkpoint, while the next calls go on: this connection's own automatic mark
   * is ten times as far.
   */
  #commitHere(req: CommitRequest): Receipt | null | 'tail' {
    if (!this.#writer.idleNow) return null;
    // A checkpoint that ran beside commits here left their frames (tailLeft): this commit goes to
    // the writer, which copies them first, and the WAL starts over at it. (As read after the last
    // lone commit.)
    if (this.#tail) {
      this.#tail = false;
      return 'tail';
    }
    this.db.exec('PRAGMA busy_timeout = 0');
    let out;
    try {
      out = this.#relaxed(() => this.#chain.append([req]))[0];
    } finally {
      this.db.exec('PRAGMA busy_timeout = 5000');
    }
    if (out === undefined) return null;
    if (!out.ok) {
      if (out.code?.startsWith('SQLITE_BUSY') === true) return null;
      throw writerError(out.code, out.message);
    }
    failpoint('during_commit');
    if (this.#wal !== null) {
      try {
        this.#wal.sync();
      } catch (e) {
        // As a failed sync poisons the writer: the kernel may have dropped the pages and forgotten.
        this.#writer.poison(e instanceof Error ? e : new Error(String(e)));
        throw e;
      }
    }
    const wal = this.#walIndex.state();
    this.#tail = tailLeft(wal);
    this.#askCheckpoint(wal?.frames ?? -1);
    const { receipt_id, digest, prev_receipt_digest, ledger_pos, ledger } = out.sealed;
    this.#writer.committedHere({ pos: ledger_pos, head: ledger }, this.#wal !== null);
    return { receipt_id, ...req.body, prev_receipt_digest, digest, replay: false } as Receipt;
  }
  /**
   * Asks the writer to checkpoint when a lone commit left the WAL past the mark: once, and again
   * only if the WAL grew by another quarter of the mark (a checkpoint that ran beside later
   * commits could not copy theirs). A request per commit made the writer checkpoint, and fsync
   * the database file, every few calls while the first checkpoint ran.
   */
  #askCheckpoint(frames: number): void {
    if (frames < 0) return; // unknown: the writer cannot count them either, and SQLite's own mark checkpoints
    if (frames < this.#askedAt) this.#askedAt = -1; // the WAL started over
    if (frames < CHECKPOINT_FRAMES || (this.#askedAt >= 0 && frames < this.#askedAt + CHECKPOINT_FRAMES / 4)) return;
    this.#askedAt = frames;
    this.#writer.checkpointSoon();
  }

  async getReceipt(id: ReceiptId): Promise<Receipt | undefined> {
    return this.#durable(this.#guard('read the receipt', () => this.#receipts.get(id)));
  }
  async listReceipts(filter: { task?: TaskId; limit?: number }): Promise<Receipt[]> {
    return this.#durable(this.#guard('list receipts', () => this.#receipts.list(filter)));
  }
  async verifyChain(task?: TaskId): Promise<ChainReport> {
    return this.#guard('verify the receipt chain', () => this.#receipts.verify(task));
  }
}
