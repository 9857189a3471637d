import type { Database, Statement, Transaction } from 'better-sqlite3';
import { bodyOf, receiptDigest, receiptIdOf, sealCanonical, unsealCanonical, type Digest, type Receipt, type ReceiptId, type TaskId } from '../../protocol/index.js';
import type { ChainReport, CommitRequest } from '../types.js';
import { relaxedWrite, type WalSync } from './wal-sync.js';

interface Row {
  seq: number;
  receipt_id: string;
  task_id: string;
  logical_effect_id: string | null;
  idempotency_key: string | null;
  tool: string;
  status: string;
  created_at: string;
  digest: string;
  prev_digest: string | null;
  body: string;
}

/**
 * Concurrent calls do not commit in every turn: a turn with one commit among them must not
 * end the batching (each write of its own costs an fsync). After this many such turns in a row
 * the caller is taken to be alone again; until then a commit waits at most to the end of its turn.
 */
const LONE_TURNS = 3;

const ROW_COLUMNS = 'seq, receipt_id, task_id, logical_effect_id, idempotency_key, tool, status, created_at, digest, prev_digest, body';

/** Receipts: insert-only (triggers refuse UPDATE and DELETE), hash-chained per task. */
export class ReceiptTable {
  readonly #db: Database;
  readonly #head: Statement<[string], { head_digest: string | null }>;
  readonly #insert: Statement<[string, string, string | null, string | null, string, string, string, string, string | null, string]>;
  readonly #advance: Statement<[string, string, string]>;
  readonly #effect: Statement<[string, string | null, string, string, string]>;
  readonly #byId: Statement<[string], { body: string; digest: string }>;
  readonly #commit: Transaction<(req: CommitRequest) => Receipt>;
  readonly #commitMany: Transaction<(reqs: readonly CommitRequest[]) => Receipt[]>;
  /** Durability `full`: receipts are written without SQLite's fsync and returned after this one (off the event loop). */
  readonly #wal: WalSync | null;
  /** Commits waiting for the end of this turn of the event loop. */
  #queue: { req: CommitRequest; resolve: (r: Receipt) => void; reject: (e: unknown) => void }[] = [];
  /** Commits asked for in this turn (0: no turn open, nothing scheduled). */
  #turnCommits = 0;
  /** Turns with commits in a row that had only one: from LONE_TURNS on, a commit is alone. */
  #loneTurns = LONE_TURNS;
  readonly #endTurn = (): void => {
    this.#loneTurns = this.#turnCommits > 1 ? 0 : this.#loneTurns + 1;
    this.#turnCommits = 0;
    if (this.#queue.length > 0) this.#flush();
  };

  constructor(db: Database, wal: WalSync | null) {
    this.#db = db;
    this.#wal = wal;
    this.#head = db.prepare(`SELECT head_digest FROM tasks WHERE task_id = ?`);
    this.#insert = db.prepare(
      `INSERT INTO receipts (receipt_id, task_id, logical_effect_id, idempotency_key, tool, status, created_at, digest, prev_digest, body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // One statement makes the task row if needed and moves its head.
    this.#advance = db.prepare(
      `INSERT INTO tasks (task_id, created_at, head_digest, receipt_count) VALUES (?, ?, ?, 1)
       ON CONFLICT(task_id) DO UPDATE SET head_digest = excluded.head_digest, receipt_count = receipt_count + 1`,
    );
    this.#effect = db.prepare(`UPDATE effects SET state = ?, receipt_id = ?, updated_at = ? WHERE task_id = ? AND effect_key = ?`);
    this.#byId = db.prepare(`SELECT body, digest FROM receipts WHERE receipt_id = ?`);
    this.#commit = db.transaction((req: CommitRequest): Receipt => {
      const task = req.body.task_id;
      const prev = (this.#head.get(task)?.head_digest ?? null) as Digest | null;
      // One serialization: the canonical body is hashed for the digest and stored as it is.
      const { receipt, text } = sealCanonical({ ...req.body, prev_receipt_digest: prev });
      this.#insert.run(
        receipt.receipt_id,
        task,
        receipt.logical_effect_id,
        receipt.idempotency_key,
        receipt.tool,
        receipt.status,
        receipt.finished_at,
        receipt.digest,
        prev,
        text,
      );
      this.#advance.run(task, receipt.finished_at, receipt.digest);
      if (req.effect) this.#effect.run(req.effect.state, receipt.receipt_id, receipt.finished_at, task, req.effect.key);
      return receipt;
    });
    this.#commitMany = db.transaction((reqs: readonly CommitRequest[]) => reqs.map((r) => this.#commit(r)));
  }

  /**
   * Group commit. A commit alone (the first of its turn of the event loop, when the last
   * LONE_TURNS turns had no other) is written at once: a lone call never waits for a batch.
   * Otherwise commits
   * join one transaction written at the end of the turn (setImmediate), so concurrent calls
   * share the cost of the commit and its fsync, and finish together (measured in
   * bench/call-overhead: writing the first of each turn at once under 8 calls in flight cost
   * ~40% of the throughput). Each promise resolves only after its transaction committed: a
   * receipt is durable before it is returned. A lone write that fails throws synchronously,
   * for the caller to type.
   */
  commit(req: CommitRequest): Receipt | Promise<Receipt> {
    if (this.#turnCommits++ === 0) {
      setImmediate(this.#endTurn);
      if (this.#loneTurns >= LONE_TURNS) {
        const receipt = this.#write(() => this.#commit.immediate(req));
        return this.#wal ? this.#wal.durable().then(() => receipt) : receipt;
      }
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ req, resolve, reject });
    });
  }

  /** One write transaction, synced by the WalSync (durability `full`) before its receipts are returned. */
  #write<T>(run: () => T): T {
    return relaxedWrite(this.#db, this.#wal, run);
  }

  #flush(): void {
    const batch = this.#queue;
    this.#queue = [];
    const settle = (b: (typeof batch)[number], receipt: Receipt): void => {
      if (this.#wal === null) b.resolve(receipt);
      else this.#wal.durable().then(() => b.resolve(receipt), b.reject);
    };
    try {
      const receipts = this.#write(() => this.#commitMany.immediate(batch.map((b) => b.req)));
      batch.forEach((b, i) => settle(b, receipts[i] as Receipt));
    } catch {
      // One bad request must not fail the others: commit them one by one.
      for (const b of batch) {
        try {
          settle(b, this.#write(() => this.#commit.immediate(b.req)));
        } catch (e) {
          b.reject(e);
        }
      }
    }
  }

  /** Resolves once every receipt written so far is on stable storage (at once when it is). */
  durable(): Promise<void> {
    return this.#wal === null || this.#wal.caughtUp ? Promise.resolve() : this.#wal.durable();
  }

  get(id: ReceiptId): Receipt | undefined {
    const row = this.#byId.get(id);
    return row ? unsealCanonical(row.body, row.digest as Digest) : undefined;
  }

  list(filter: { task?: TaskId; limit?: number }): Receipt[] {
    const limit = filter.limit ?? 100;
    const rows = filter.task
      ? this.#db.prepare<[string, number], { body: string; digest: string }>(`SELECT body, digest FROM receipts WHERE task_id = ? ORDER BY seq DESC LIMIT ?`).all(filter.task, limit)
      : this.#db.prepare<[number], { body: string; digest: string }>(`SELECT body, digest FROM receipts ORDER BY seq DESC LIMIT ?`).all(limit);
    return rows.map((r) => unsealCanonical(r.body, r.digest as Digest));
  }

  /**
   * Walks each task's receipts in insertion order and recomputes everything from the stored
   * body: its digest, its id, the columns that index it, and the link to the previous receipt.
   */
  verify(task?: TaskId): ChainReport {
    const rows = task
      ? this.#db.prepare<[string], Row>(`SELECT ${ROW_COLUMNS} FROM receipts WHERE task_id = ? ORDER BY seq`).iterate(task)
      : this.#db.prepare<[], Row>(`SELECT ${ROW_COLUMNS} FROM receipts ORDER BY task_id, seq`).iterate();
    const heads = new Map<string, string | null>();
    const brokenTasks = new Set<string>();
    const broken: { task_id: string; seq: number; receipt_id: string; reason: string }[] = [];
    let count = 0;
    for (const row of rows) {
      count++;
      if (brokenTasks.has(row.task_id)) continue;
      const fail = (reason: string): void => {
        broken.push({ task_id: row.task_id, seq: row.seq, receipt_id: row.receipt_id, reason });
        brokenTasks.add(row.task_id);
      };
      const prev = heads.has(row.task_id) ? (heads.get(row.task_id) as string | null) : null;
      let receipt: Receipt;
      try {
        receipt = unsealCanonical(row.body, row.digest as Digest);
      } catch {
        fail('body is not JSON');
        continue;
      }
      const digest = receiptDigest(bodyOf(receipt));
      if (digest !== receipt.digest) fail('body does not match its digest');
      else if (digest !== row.digest) fail('digest column does not match the body');
      else if (receiptIdOf(digest) !== receipt.receipt_id || receipt.receipt_id !== row.receipt_id) fail('receipt id is not derived from its digest');
      else if (
        receipt.task_id !== row.task_id ||
        receipt.status !== row.status ||
        receipt.tool !== row.tool ||
        receipt.finished_at !== row.created_at ||
        receipt.logical_effect_id !== row.logical_effect_id ||
        receipt.idempotency_key !== row.idempotency_key
      )
        fail('an indexed column does not match the body');
      else if ((receipt.prev_receipt_digest ?? null) !== prev || (row.prev_digest ?? null) !== prev) fail('link to the previous receipt is broken');
      heads.set(row.task_id, row.digest);
    }
    // The task head must name the last receipt: a deleted tail shows here.
    const tasks = task
      ? this.#db.prepare<[string], { task_id: string; head_digest: string | null }>(`SELECT task_id, head_digest FROM tasks WHERE task_id = ?`).all(task)
      : this.#db.prepare<[], { task_id: string; head_digest: string | null }>(`SELECT task_id, head_digest FROM tasks`).all();
    for (const t of tasks) {
      if (brokenTasks.has(t.task_id)) continue;
      const last = heads.get(t.task_id) ?? null;
      if ((t.head_digest ?? null) !== last) {
        broken.push({ task_id: t.task_id, seq: -1, receipt_id: '', reason: 'task head does not name its last receipt (receipts removed?)' });
      }
    }
    return { ok: broken.length === 0, tasks: tasks.length, receipts: count, broken };
  }
}
