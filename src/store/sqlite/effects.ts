import type { Database, Statement, Transaction } from 'better-sqlite3';
import { hostname } from 'node:os';
import type { AttemptId, Digest, Receipt, ReceiptId, TaskId } from '../../protocol/index.js';
import type { ClaimRequest, ClaimResult, EffectRecord, EffectState } from '../types.js';

interface Row {
  task_id: string;
  effect_key: string;
  logical_effect_id: string | null;
  idempotency_key: string | null;
  args_digest: string;
  tool: string;
  tool_version: string;
  state: EffectState;
  attempt_id: string;
  owner: string;
  owner_pid: number;
  owner_host: string;
  deadline: number;
  receipt_id: string | null;
  arguments: string;
  created_at: string;
  updated_at: string;
}

/** After its deadline plus this, a record still in flight on another host is taken as abandoned. */
export const ABANDON_GRACE_MS = 5_000;

function recordOf(r: Row): EffectRecord {
  return {
    ...r,
    task_id: r.task_id as TaskId,
    args_digest: r.args_digest as Digest,
    attempt_id: r.attempt_id as AttemptId,
    receipt_id: r.receipt_id as ReceiptId | null,
    arguments: JSON.parse(r.arguments) as unknown,
  };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The idempotency state machine (DESIGN §3), one row per logical effect. Claims run in an
 * IMMEDIATE transaction, so concurrent duplicates from any number of runtimes see one winner.
 */
export class EffectTable {
  readonly #db: Database;
  readonly #owner: string;
  readonly #host = hostname();
  readonly #get: Statement<[string, string], Row>;
  readonly #insert: Statement<unknown[]>;
  readonly #reclaim: Statement<unknown[]>;
  readonly #setState: Statement<[EffectState, string, string, string]>;
  readonly #receiptBody: Statement<[string], { body: string }>;
  readonly #claim: Transaction<(req: ClaimRequest) => ClaimResult>;

  constructor(db: Database, owner: string) {
    this.#db = db;
    this.#owner = owner;
    this.#get = db.prepare(`SELECT * FROM effects WHERE task_id = ? AND effect_key = ?`);
    this.#insert = db.prepare(
      `INSERT INTO effects (task_id, effect_key, logical_effect_id, idempotency_key, args_digest, tool, tool_version, state,
         attempt_id, owner, owner_pid, owner_host, deadline, receipt_id, arguments, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'claimed', ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
    );
    this.#reclaim = db.prepare(
      `UPDATE effects SET state = 'claimed', attempt_id = ?, owner = ?, owner_pid = ?, owner_host = ?, receipt_id = NULL, updated_at = ?
       WHERE task_id = ? AND effect_key = ?`,
    );
    this.#setState = db.prepare(`UPDATE effects SET state = ?, updated_at = ? WHERE task_id = ? AND effect_key = ?`);
    this.#receiptBody = db.prepare(`SELECT body FROM receipts WHERE receipt_id = ?`);
    this.#claim = db.transaction((req: ClaimRequest) => this.#decide(req));
  }

  find(task: TaskId, key: string): EffectRecord | undefined {
    const row = this.#get.get(task, key);
    return row ? recordOf(row) : undefined;
  }

  claim(req: ClaimRequest): ClaimResult {
    return this.#claim.immediate(req);
  }

  markSent(task: TaskId, key: string): void {
    this.#setState.run('sent', new Date().toISOString(), task, key);
  }

  settle(task: TaskId, key: string, state: 'released' | 'ambiguous' | 'completed'): void {
    this.#setState.run(state, new Date().toISOString(), task, key);
  }

  list(filter: { state?: EffectState; task?: TaskId }): EffectRecord[] {
    const where: string[] = [];
    const args: string[] = [];
    if (filter.state) {
      where.push('state = ?');
      args.push(filter.state);
    }
    if (filter.task) {
      where.push('task_id = ?');
      args.push(filter.task);
    }
    const sql = `SELECT * FROM effects ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at`;
    return this.#db.prepare<string[], Row>(sql).all(...args).map(recordOf);
  }

  /** Whether the runtime that holds an in-flight record is gone. */
  #abandoned(row: Row, now: number): boolean {
    if (row.owner === this.#owner) return false;
    if (row.owner_host === this.#host) return !pidAlive(row.owner_pid);
    return now > row.deadline + ABANDON_GRACE_MS;
  }

  #decide(req: ClaimRequest): ClaimResult {
    const nowIso = new Date().toISOString();
    const row = this.#get.get(req.task_id, req.effect_key);
    if (!row) {
      this.#insert.run(
        req.task_id,
        req.effect_key,
        req.logical_effect_id,
        req.idempotency_key,
        req.args_digest,
        req.tool,
        req.tool_version,
        req.attempt_id,
        this.#owner,
        process.pid,
        this.#host,
        req.deadline,
        JSON.stringify(req.arguments ?? null),
        nowIso,
        nowIso,
      );
      return { kind: 'new' };
    }
    if (row.args_digest !== req.args_digest || row.tool !== req.tool) return { kind: 'conflict', record: recordOf(row) };
    const reclaim = (): ClaimResult => {
      this.#reclaim.run(req.attempt_id, this.#owner, process.pid, this.#host, nowIso, req.task_id, req.effect_key);
      return { kind: 'new' };
    };
    switch (row.state) {
      case 'completed': {
        const body = row.receipt_id ? this.#receiptBody.get(row.receipt_id)?.body : undefined;
        if (body === undefined) return { kind: 'ambiguous', record: recordOf(row) };
        return { kind: 'replay', receipt: { ...(JSON.parse(body) as Receipt), replay: true } };
      }
      case 'released':
        return reclaim();
      case 'claimed':
        // Nothing was sent: an abandoned claim is as good as released.
        return this.#abandoned(row, Date.now()) ? reclaim() : { kind: 'in_progress', record: recordOf(row) };
      case 'sent':
        if (!this.#abandoned(row, Date.now())) return { kind: 'in_progress', record: recordOf(row) };
        this.#setState.run('ambiguous', nowIso, req.task_id, req.effect_key);
        return req.safe_to_repeat ? reclaim() : { kind: 'ambiguous', record: { ...recordOf(row), state: 'ambiguous' } };
      case 'ambiguous':
        return req.safe_to_repeat ? reclaim() : { kind: 'ambiguous', record: recordOf(row) };
    }
  }
}
