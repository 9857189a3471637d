import type { AttemptId, Digest, Receipt, ReceiptBody, ReceiptId, TaskId } from '../protocol/index.js';
import type { EffectIntent, Manifest } from '../registry/index.js';
import type { PolicyStores } from '../policy/index.js';
import type { LedgerHead, LedgerStore } from './ledger.js';

export type EffectState = 'claimed' | 'sent' | 'completed' | 'released' | 'ambiguous';

/** The durable record of one logical effect (DESIGN §3, the idempotency state machine). */
export interface EffectRecord {
  readonly task_id: TaskId;
  readonly effect_key: string;
  readonly logical_effect_id: string | null;
  readonly idempotency_key: string | null;
  readonly args_digest: Digest;
  readonly tool: string;
  readonly tool_version: string;
  readonly state: EffectState;
  readonly attempt_id: AttemptId;
  readonly owner: string;
  readonly owner_pid: number;
  readonly owner_host: string;
  /** Absolute epoch ms: fixed at the first claim, a retry never extends it. */
  readonly deadline: number;
  readonly receipt_id: ReceiptId | null;
  /**
   * What the tool's reconcile() needs, recorded (redacted) at markSent before the effect:
   * paths and digests only. The arguments themselves are never stored, only their digest.
   */
  readonly intent: EffectIntent | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** What a call brings to a claim: the record's identity and arguments; the store sets the rest. */
export interface ClaimRequest
  extends Pick<
    EffectRecord,
    'task_id' | 'effect_key' | 'logical_effect_id' | 'idempotency_key' | 'args_digest' | 'tool' | 'tool_version' | 'attempt_id' | 'deadline'
  > {
  /** Whether an ambiguous record may simply be run again (the tool's contract). */
  readonly safe_to_repeat: boolean;
}

/**
 * What a claim found. `new`: the caller holds the record (a fresh claim or a free one taken
 * over). `free`: an inspection found nothing that stops the call (nothing written). `reconcile`:
 * the record was sent by an owner that is gone; the caller now owns it, still `sent`, and
 * must settle it through the tool's reconcile() before anything runs again.
 */
export type ClaimResult =
  | { readonly kind: 'new' }
  | { readonly kind: 'free' }
  | { readonly kind: 'replay'; readonly receipt: Receipt }
  | { readonly kind: 'conflict'; readonly record: EffectRecord }
  | { readonly kind: 'in_progress'; readonly record: EffectRecord }
  | { readonly kind: 'reconcile'; readonly record: EffectRecord }
  | { readonly kind: 'ambiguous'; readonly record: EffectRecord };

/** A record that waits for reconcile: ambiguous, or sent by an owner that is gone (or still running). */
export interface UnsettledEffect extends EffectRecord {
  /** Whether the owner of a `sent` record is still running it (then it is not for reconcile yet). */
  readonly owner_alive: boolean;
}

/**
 * Every method is asynchronous so that a backend may live across a network (PostgreSQL). The
 * conformance suite (test/store/conformance) is the contract every backend passes.
 */
export interface EffectStore {
  /** Looks up a record without changing it (to keep a retry's deadline). */
  findEffect(task: TaskId, key: string): Promise<EffectRecord | undefined>;
  /**
   * Examines the record a call would claim, before its resources are normalized: replay,
   * conflict, in progress, ambiguous, reconcile (taken over) or free. Writes only to take over
   * a sent record whose owner is gone.
   */
  inspect(req: ClaimRequest): Promise<ClaimResult>;
  /** Claims in one atomic step: of any number of concurrent claims of one key, one gets `new`. */
  claim(req: ClaimRequest): Promise<ClaimResult>;
  /** Marks the record sent and records the tool's intent, durably, before the effect. */
  markSent(task: TaskId, key: string, intent: EffectIntent | null): Promise<void>;
  /** Moves a record out of claimed/sent without a receipt (e.g. the runtime is closing). */
  settle(task: TaskId, key: string, state: 'released' | 'ambiguous' | 'completed'): Promise<void>;
  /** Forgets that this runtime holds the record (its call is over, receipt committed or not). */
  letGo(task: TaskId, key: string): Promise<void>;
  listEffects(filter: { state?: EffectState; task?: TaskId }): Promise<EffectRecord[]>;
  /** Every ambiguous record and every sent one, each with whether its owner is still running it. */
  listUnsettled(): Promise<UnsettledEffect[]>;
  /** Takes over an unsettled record for reconcile or an operator (refused while its owner runs it). */
  takeOver(task: TaskId, key: string): Promise<TakeOver>;
}

export type TakeOver =
  | { readonly kind: 'taken'; readonly record: EffectRecord }
  | { readonly kind: 'in_progress'; readonly record: EffectRecord }
  | { readonly kind: 'settled'; readonly record: EffectRecord }
  | { readonly kind: 'absent' };

export interface CommitRequest {
  readonly body: Omit<ReceiptBody, 'prev_receipt_digest'>;
  /** When the call held an effect record, its final state, set in the same transaction. */
  readonly effect?: { readonly key: string; readonly state: 'completed' | 'released' | 'ambiguous' };
}

export interface CommitOptions {
  /**
   * No other call of the runtime is in flight. A store may then commit on the caller's thread
   * instead of handing the receipt to a group commit, which only pays off when others join it
   * (the SQLite store: docs/protocol.md#durability).
   */
  readonly alone?: boolean;
}

export interface ReceiptStore {
  /**
   * Chains, seals and persists a receipt atomically (with the effect record's final state);
   * resolves once it is durable, with the receipt as stored. Whether concurrent commits share
   * a transaction is the backend's business.
   */
  commit(req: CommitRequest, opts?: CommitOptions): Promise<Receipt>;
  getReceipt(id: ReceiptId): Promise<Receipt | undefined>;
  /** Newest first. */
  listReceipts(filter: { task?: TaskId; limit?: number }): Promise<Receipt[]>;
  /** Recomputes every digest and link; names the first broken link of each task. */
  verifyChain(task?: TaskId): Promise<ChainReport>;
}

export interface ChainReport {
  readonly ok: boolean;
  readonly tasks: number;
  readonly receipts: number;
  readonly broken: readonly { readonly task_id: string; readonly seq: number; readonly receipt_id: string; readonly reason: string }[];
}

export interface TaskRecord {
  readonly task_id: TaskId;
  readonly registry_revision: Digest;
  readonly created_at: string;
  /** The runtime digest of the task's first call (docs/release.md); absent for tasks from before it was kept. */
  readonly runtime_digest?: Digest;
}

/** What `noteRuntime` found: the runtime the task started on, and the one it last ran on (null: this is its first). */
export interface RuntimeNote {
  readonly started_on: Digest;
  readonly previous: Digest | null;
}

export interface TaskStore {
  /** Pins the task to `manifest` at its first call; later calls get the pinned manifest back. */
  pinTask(task: TaskId, manifest: Manifest): Promise<Manifest>;
  getTask(task: TaskId): Promise<TaskRecord | undefined>;
  /**
   * Records that `task` runs under runtime `digest` now, in one atomic step: the first note of a
   * task is the runtime it started on; each note returns the runtime it last ran on before it.
   */
  noteRuntime(task: TaskId, digest: Digest): Promise<RuntimeNote>;
  /** Toolgate's own workspace mutation counter. */
  currentRevision(): Promise<number>;
  advanceRevision(): Promise<number>;
}

/**
 * A subtask's durable row (src/tasks): its place in the task tree, its state and the digest of
 * its task token; `record` is the tasks layer's own JSON (objective, schema, worktree, result).
 */
export interface SubtaskRow {
  readonly task_id: TaskId;
  readonly parent_id: TaskId;
  /** The root of the tree (a task without a row: an agent's own session). */
  readonly root_id: TaskId;
  readonly depth: number;
  readonly state: string;
  readonly token_digest: string;
  readonly record: Readonly<Record<string, unknown>>;
  readonly created_at: string;
  readonly updated_at: string;
}

/** One edge of the wait-for graph: `waiter` waits for `target` until `until` (epoch ms). */
export interface WaitEdge {
  readonly waiter: TaskId;
  readonly target: TaskId;
  readonly until: number;
}

/**
 * The task tree. Each `check` runs inside the store's transaction over the rows it is given, so
 * that bounds, ownership and cycles are decided on the same state the insert lands in.
 */
export interface SubtaskStore {
  /** Inserts `row` unless `check(rows of its tree)` returns a refusal, which is returned instead. */
  insertSubtask<R>(row: SubtaskRow, check: (tree: readonly SubtaskRow[]) => R | null): Promise<R | null>;
  getSubtask(task: TaskId): Promise<SubtaskRow | undefined>;
  subtaskByToken(digest: string): Promise<SubtaskRow | undefined>;
  listSubtasks(filter: { root?: TaskId; parent?: TaskId }): Promise<SubtaskRow[]>;
  /** Compare-and-set: writes `state` and `record` only when the row is in one of `from`; whether it did. */
  updateSubtask(task: TaskId, from: readonly string[], state: string, record: Readonly<Record<string, unknown>>): Promise<boolean>;
  /** Adds the edges unless `check(live edges)` returns a refusal; expired edges are dropped first. */
  addWaits<R>(edges: readonly WaitEdge[], now: number, check: (live: readonly WaitEdge[]) => R | null): Promise<R | null>;
  removeWaits(waiter: TaskId, targets: readonly TaskId[]): Promise<void>;
}

/** One backend's whole state: effects, receipts, tasks, and the policy layer's stores. */
export interface Store extends EffectStore, ReceiptStore, TaskStore, PolicyStores {
  /** The subtask tree (src/tasks); optional, so that a backend without it refuses `task.spawn`. */
  readonly subtasks?: SubtaskStore;
  /** The ledger over every receipt (ledger.ts) that audit checkpoints pin; optional, as `subtasks`. */
  readonly ledger?: LedgerStore;
  /** Releases the backend (connections, file handles); the store is unusable afterwards. */
  close(): Promise<void>;
  /**
   * A named secret shared by every runtime on this store (the continuation-token key): 32
   * bytes, created once, atomically: of concurrent first calls one wins and all get its bytes.
   * `adopt` (an older state dir's key) is what gets stored when the store has none yet.
   * Optional: without it the runtime keeps the key in its state dir (one host only).
   */
  sharedKey?(name: string, adopt?: Buffer): Promise<Buffer>;
}

/** What the runtime tells a store factory at open. */
export interface StoreContext {
  /** The runtime's state dir (outside the workspace): where an embedded store keeps its file. */
  readonly stateDir: string;
  /** Told the store's ledger head after each durable commit of this store (the audit checkpoints). */
  readonly onLedger?: (head: LedgerHead) => void;
}

/**
 * How a runtime gets its store: `createRuntime({ workspace, store: sqliteStore({ … }) })`.
 * The runtime calls it once at open and closes what it returns at close.
 */
export type StoreFactory = (ctx: StoreContext) => Promise<Store>;
