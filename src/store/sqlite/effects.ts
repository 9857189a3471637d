import type { Database, Statement, Transaction } from 'better-sqlite3';
import { unsealCanonical, type Digest, type TaskId } from '../../protocol/index.js';
import type { EffectIntent } from '../../registry/index.js';
import type { EffectOwner } from '../liveness.js';
import type { ClaimRequest, ClaimResult, EffectRecord, EffectState, TakeOver, UnsettledEffect } from '../types.js';
import { effectRecordOf, type EffectRow } from '../rows.js';



/**
 * The idempotency state machine (DESIGN §3), one row per logical effect. Claims run in an
 * IMMEDIATE transaction, so concurrent duplicates from any number of runtimes see one winner.
 * The row keeps the argument digest and the tool's redacted intent, never the arguments.
 */
export class EffectTable {
  readonly #db: Database;
  /** This store instance as the owner of records, and the rule that says an owner is gone. */
  readonly #owner: EffectOwner;
  readonly #get: Statement<[string, string], EffectRow>;
  readonly #insert: Statement<unknown[]>;
  readonly #reclaim: Statement<unknown[]>;
  readonly #adopt: Statement<[string, number, string, string, string, string]>;
  readonly #adoptSent: Statement<[string, number, string, string, string, string]>;
  readonly #setState: Statement<[EffectState, string, string, string]>;
  readonly #setSent: Statement<[string | null, string, string, string]>;
  readonly #receiptBody: Statement<[string], { body: string; digest: string }>;
  readonly #claim: Transaction<(req: ClaimRequest, write: boolean) => ClaimResult>;
  readonly #takeOver: Transaction<(task: TaskId, key: string) => TakeOver>;

  constructor(db: Database, owner: EffectOwner) {
    this.#db = db;
    this.#owner = owner;
    this.#get = db.prepare(`SELECT * FROM effects WHERE task_id = ? AND effect_key = ?`);
    this.#insert = db.prepare(
      `INSERT INTO effects (task_id, effect_key, logical_effect_id, idempotency_key, args_digest, tool, tool_version, state,
         attempt_id, owner, owner_pid, owner_host, deadline, receipt_id, intent, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'claimed', ?, ?, ?, ?, ?, NULL, NULL, ?, ?)`,
    );
    this.#reclaim = db.prepare(
      `UPDATE effects SET state = 'claimed', attempt_id = ?, owner = ?, owner_pid = ?, owner_host = ?, receipt_id = NULL, intent = NULL, updated_at = ?
       WHERE task_id = ? AND effect_key = ?`,
    );
    this.#adopt = db.prepare(`UPDATE effects SET owner = ?, owner_pid = ?, owner_host = ?, updated_at = ? WHERE task_id = ? AND effect_key = ?`);
    this.#adoptSent = db.prepare(`UPDATE effects SET state = 'sent', owner = ?, owner_pid = ?, owner_host = ?, updated_at = ? WHERE task_id = ? AND effect_key = ?`);
    this.#setState = db.prepare(`UPDATE effects SET state = ?, updated_at = ? WHERE task_id = ? AND effect_key = ?`);
    this.#setSent = db.prepare(`UPDATE effects SET state = 'sent', intent = ?, updated_at = ? WHERE task_id = ? AND effect_key = ?`);
    this.#receiptBody = db.prepare(`SELECT body, digest FROM receipts WHERE receipt_id = ?`);
    this.#claim = db.transaction((req: ClaimRequest, write: boolean) => this.#decide(req, write));
    this.#takeOver = db.transaction((task: TaskId, key: string) => this.#seize(task, key));
  }

  find(task: TaskId, key: string): EffectRecord | undefined {
    const row = this.#get.get(task, key);
    return row ? effectRecordOf(row) : undefined;
  }

  claim(req: ClaimRequest): ClaimResult {
    const r = this.#claim.immediate(req, true);
    if (r.kind === 'new' || r.kind === 'reconcile') this.#owner.hold(req.task_id, req.effect_key);
    return r;
  }

  inspect(req: ClaimRequest): ClaimResult {
    const r = this.#claim.immediate(req, false);
    if (r.kind === 'reconcile') this.#owner.hold(req.task_id, req.effect_key);
    return r;
  }

  takeOver(task: TaskId, key: string): TakeOver {
    const r = this.#takeOver.immediate(task, key);
    if (r.kind === 'taken') this.#owner.hold(task, key);
    return r;
  }

  letGo(task: TaskId, key: string): void {
    this.#owner.letGo(task, key);
  }

  markSent(task: TaskId, key: string, intent: EffectIntent | null): void {
    this.#setSent.run(intent === null ? null : JSON.stringify(intent), new Date().toISOString(), task, key);
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
    return this.#db.prepare<string[], EffectRow>(sql).all(...args).map(effectRecordOf);
  }

  listUnsettled(): UnsettledEffect[] {
    const now = Date.now();
    return this.#db
      .prepare<[], EffectRow>(`SELECT * FROM effects WHERE state IN ('sent', 'ambiguous') ORDER BY updated_at`)
      .all()
      .map((row) => ({ ...effectRecordOf(row), owner_alive: row.state === 'sent' && !this.#abandoned(row, now) }));
  }

  /** Whether the runtime that holds an in-flight record is gone (or, for this one, no longer runs its call). */
  #abandoned(row: EffectRow, now: number): boolean {
    return this.#owner.abandoned(row, now);
  }

  #adoptRow(row: EffectRow, nowIso: string): EffectRecord {
    const o = this.#owner;
    // An ambiguous record becomes `sent` by this owner while it is reconciled: a concurrent retry
    // sees it in progress (not a second reconcile), and if this process dies meanwhile the next
    // retry takes it over as any sent record of a gone owner. Reconcile moves it on (or back).
    const stmt = row.state === 'ambiguous' ? this.#adoptSent : this.#adopt;
    stmt.run(o.id, o.pid, o.host, nowIso, row.task_id, row.effect_key);
    // updated_at stays when it was sent (or found ambiguous): what the settling receipt reports.
    return { ...effectRecordOf(row), state: 'sent', owner: o.id, owner_pid: o.pid, owner_host: o.host };
  }

  #seize(task: TaskId, key: string): TakeOver {
    const row = this.#get.get(task, key);
    if (!row) return { kind: 'absent' };
    switch (row.state) {
      case 'sent':
        if (!this.#abandoned(row, Date.now())) return { kind: 'in_progress', record: effectRecordOf(row) };
        return { kind: 'taken', record: this.#adoptRow(row, new Date().toISOString()) };
      case 'ambiguous':
        return { kind: 'taken', record: this.#adoptRow(row, new Date().toISOString()) };
      case 'claimed':
        return this.#abandoned(row, Date.now()) ? { kind: 'settled', record: effectRecordOf(row) } : { kind: 'in_progress', record: effectRecordOf(row) };
      case 'completed':
      case 'released':
        return { kind: 'settled', record: effectRecordOf(row) };
    }
  }

  /**
   * One step of the state machine. With `write` false (the inspection before normalize) a
   * call that may go ahead gets `free` and nothing is written.
   */
  #decide(req: ClaimRequest, write: boolean): ClaimResult {
    const nowIso = new Date().toISOString();
    const row = this.#get.get(req.task_id, req.effect_key);
    if (!row) {
      if (!write) return { kind: 'free' };
      this.#insert.run(
        req.task_id,
        req.effect_key,
        req.logical_effect_id,
        req.idempotency_key,
        req.args_digest,
        req.tool,
        req.tool_version,
        req.attempt_id,
        this.#owner.id,
        this.#owner.pid,
        this.#owner.host,
        req.deadline,
        nowIso,
        nowIso,
      );
      return { kind: 'new' };
    }
    if (row.args_digest !== req.args_digest || row.tool !== req.tool) return { kind: 'conflict', record: effectRecordOf(row) };
    const reclaim = (): ClaimResult => {
      if (!write) return { kind: 'free' };
      this.#reclaim.run(req.attempt_id, this.#owner.id, this.#owner.pid, this.#owner.host, nowIso, req.task_id, req.effect_key);
      return { kind: 'new' };
    };
    switch (row.state) {
      case 'completed': {
        const id = row.receipt_id;
        const stored = id ? this.#receiptBody.get(id) : undefined;
        if (!id || stored === undefined) return { kind: 'ambiguous', record: effectRecordOf(row) };
        return { kind: 'replay', receipt: { ...unsealCanonical(stored.body, stored.digest as Digest, id), replay: true } };
      }
      case 'released':
        return reclaim();
      case 'claimed':
        // Nothing was sent: an abandoned claim is as good as released.
        return this.#abandoned(row, Date.now()) ? reclaim() : { kind: 'in_progress', record: effectRecordOf(row) };
      case 'sent':
        if (!this.#abandoned(row, Date.now())) return { kind: 'in_progress', record: effectRecordOf(row) };
        // Its owner is gone after the effect may have started: whoever retries settles it first.
        return req.safe_to_repeat ? reclaim() : { kind: 'reconcile', record: this.#adoptRow(row, nowIso) };
      case 'ambiguous':
        // May have happened: a retry asks the tool's reconcile() first, never runs it blindly.
        return req.safe_to_repeat ? reclaim() : { kind: 'reconcile', record: this.#adoptRow(row, nowIso) };
    }
  }
}
