import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { Digest } from '../../protocol/index.js';
import { sealLink } from '../chain-check.js';
import { ledgerStep } from '../ledger.js';
import type { CommitRequest } from '../types.js';

/** What a commit adds to the body it was given: the store's part of the receipt. */
export interface Sealed {
  readonly receipt_id: string;
  readonly digest: Digest;
  readonly prev_receipt_digest: Digest | null;
  /** The receipt's place in the store's ledger and the ledger after it (src/store/ledger.ts). */
  readonly ledger_pos: number;
  readonly ledger: string;
}

export type Appended = { readonly ok: true; readonly sealed: Sealed } | { readonly ok: false; readonly code: string | null; readonly message: string };

/** A batch's moves of the task heads and of the ledger, written once at its end. */
interface Moves {
  readonly tasks: Map<string, { head: Digest; count: number; created_at: string }>;
  ledger: { pos: number; head: string | null };
}

/**
 * Appends receipts to their tasks' hash chains: reads the task's head, seals the body (its one
 * canonical serialization is hashed and stored as is), inserts it with its ledger position and
 * sets the held effect record's final state; the tasks' heads and the ledger's move once per
 * batch, at its end (two statements per receipt before; the pages are written once per
 * transaction either way), all in one IMMEDIATE transaction per batch. A batch that fails is
 * retried one by one, so one bad request fails alone.
 */
export class ReceiptChain {
  readonly #head: Statement<[string], { head_digest: string | null }>;
  readonly #insert: Statement<[string, string, string | null, string | null, string, string, string, string, string | null, string, number, string]>;
  readonly #ledger: Statement<[], { pos: number; head: string | null }>;
  readonly #moveLedger: Statement<[number, string | null]>;
  readonly #advance: Statement<[string, string, string, number, number]>;
  readonly #effect: Statement<[string, string | null, string, string, string]>;
  readonly #many: Transaction<(reqs: readonly CommitRequest[]) => Sealed[]>;

  constructor(db: Database) {
    this.#head = db.prepare(`SELECT head_digest FROM tasks WHERE task_id = ?`);
    this.#insert = db.prepare(
      `INSERT INTO receipts (receipt_id, task_id, logical_effect_id, idempotency_key, tool, status, created_at, digest, prev_digest, body, ledger_pos, ledger)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#ledger = db.prepare(`SELECT pos, head FROM audit_ledger WHERE id = 1`);
    this.#moveLedger = db.prepare(`UPDATE audit_ledger SET pos = ?, head = ? WHERE id = 1`);
    // One statement makes the task row if needed and moves its head past the batch's receipts.
    this.#advance = db.prepare(
      `INSERT INTO tasks (task_id, created_at, head_digest, receipt_count) VALUES (?, ?, ?, ?)
       ON CONFLICT(task_id) DO UPDATE SET head_digest = excluded.head_digest, receipt_count = receipt_count + ?`,
    );
    this.#effect = db.prepare(`UPDATE effects SET state = ?, receipt_id = ?, updated_at = ? WHERE task_id = ? AND effect_key = ?`);
    this.#many = db.transaction((reqs: readonly CommitRequest[]) => {
      const at = this.#ledger.get();
      const moves: Moves = { tasks: new Map(), ledger: { pos: Number(at?.pos ?? 0), head: at?.head ?? null } };
      const sealed = reqs.map((r) => this.#append(r, moves));
      for (const [task, m] of moves.tasks) this.#advance.run(task, m.created_at, m.head, m.count, m.count);
      this.#moveLedger.run(moves.ledger.pos, moves.ledger.head);
      return sealed;
    });
  }

  #append(req: CommitRequest, moves: Moves): Sealed {
    const task = req.body.task_id;
    const moved = moves.tasks.get(task);
    const prev = (moved ? moved.head : (this.#head.get(task)?.head_digest ?? null)) as Digest | null;
    const { receipt, row } = sealLink(req.body, prev);
    const ledger_pos = moves.ledger.pos + 1;
    const ledger = ledgerStep(moves.ledger.head, row.digest);
    this.#insert.run(row.receipt_id, task, row.logical_effect_id, row.idempotency_key, row.tool, row.status, row.created_at, row.digest, prev, row.body, ledger_pos, ledger);
    moves.ledger = { pos: ledger_pos, head: ledger };
    if (moved) {
      moved.head = receipt.digest;
      moved.count++;
    } else moves.tasks.set(task, { head: receipt.digest, count: 1, created_at: receipt.finished_at });
    if (req.effect) this.#effect.run(req.effect.state, receipt.receipt_id, receipt.finished_at, task, req.effect.key);
    return { receipt_id: receipt.receipt_id, digest: receipt.digest, prev_receipt_digest: prev, ledger_pos, ledger };
  }

  /** Appends a batch; one outcome per request, in order. */
  append(reqs: readonly CommitRequest[]): Appended[] {
    try {
      return this.#many.immediate(reqs).map((sealed) => ({ ok: true as const, sealed }));
    } catch (e) {
      if (reqs.length === 1) return [failed(e)];
      return reqs.map((r) => {
        try {
          return { ok: true as const, sealed: this.#many.immediate([r])[0] as Sealed };
        } catch (err) {
          return failed(err);
        }
      });
    }
  }
}

function failed(e: unknown): Appended {
  const code = typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : null;
  return { ok: false, code, message: e instanceof Error ? e.message : String(e) };
}
