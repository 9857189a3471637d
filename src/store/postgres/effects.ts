import { unsealCanonical, type Digest, type TaskId } from '../../protocol/index.js';
import type { EffectIntent } from '../../registry/index.js';
import type { EffectOwner } from '../liveness.js';
import type { ClaimRequest, ClaimResult, EffectRecord, EffectState, TakeOver, UnsettledEffect } from '../types.js';
import { effectRecordOf, type EffectRow } from '../rows.js';
import type { Database, Transaction } from './database.js';


const COLUMNS =
  'task_id, effect_key, logical_effect_id, idempotency_key, args_digest, tool, tool_version, state, attempt_id, owner, owner_pid, owner_host, deadline, receipt_id, intent, created_at, updated_at';


/**
 * The idempotency state machine (DESIGN §3) on PostgreSQL, with the SQLite table's semantics
 * (sqlite/effects.ts). A claim locks the record's row (`SELECT … FOR UPDATE`) and decides on it;
 * an absent record is inserted with `ON CONFLICT DO NOTHING`, and a claim that lost that insert
 * to a concurrent one locks and decides on the winner's row. So of any number of concurrent
 * claims of one key, from any number of hosts, exactly one gets `new`. The store instance holds
 * a record (EffectOwner) before the claim commits: no other claim can see the row unheld.
 */
export class PgEffectTable {
  readonly #db: Database;
  readonly #owner: EffectOwner;

  constructor(db: Database, owner: EffectOwner) {
    this.#db = db;
    this.#owner = owner;
  }

  async find(task: TaskId, key: string): Promise<EffectRecord | undefined> {
    const row = (await this.#db.read<EffectRow>('read the effect record', `SELECT ${COLUMNS} FROM effects WHERE task_id = $1 AND effect_key = $2`, [task, key])).rows[0];
    return row ? effectRecordOf(row) : undefined;
  }

  claim(req: ClaimRequest): Promise<ClaimResult> {
    return this.#db.transaction('record the intent', (tx) => this.#decide(tx, req, true));
  }

  inspect(req: ClaimRequest): Promise<ClaimResult> {
    return this.#db.transaction('examine the effect record', (tx) => this.#decide(tx, req, false));
  }

  takeOver(task: TaskId, key: string): Promise<TakeOver> {
    return this.#db.transaction('take over the effect record', (tx) => this.#seize(tx, task, key));
  }

  letGo(task: TaskId, key: string): void {
    this.#owner.letGo(task, key);
  }

  async markSent(task: TaskId, key: string, intent: EffectIntent | null): Promise<void> {
    // Autocommit with synchronous_commit on: the intent is durable before this resolves.
    await this.#db.query('record that the effect is sent', `UPDATE effects SET state = 'sent', intent = $1, updated_at = $2 WHERE task_id = $3 AND effect_key = $4`, [
      intent === null ? null : JSON.stringify(intent),
      new Date().toISOString(),
      task,
      key,
    ]);
  }

  async settle(task: TaskId, key: string, state: 'released' | 'ambiguous' | 'completed'): Promise<void> {
    await this.#db.query('settle the effect record', `UPDATE effects SET state = $1, updated_at = $2 WHERE task_id = $3 AND effect_key = $4`, [state, new Date().toISOString(), task, key]);
  }

  async list(filter: { state?: EffectState; task?: TaskId }): Promise<EffectRecord[]> {
    const where: string[] = [];
    const args: string[] = [];
    if (filter.state) {
      args.push(filter.state);
      where.push(`state = $${args.length}`);
    }
    if (filter.task) {
      args.push(filter.task);
      where.push(`task_id = $${args.length}`);
    }
    const sql = `SELECT ${COLUMNS} FROM effects ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY created_at, seq`;
    return (await this.#db.read<EffectRow>('list effect records', sql, args)).rows.map(effectRecordOf);
  }

  async listUnsettled(): Promise<UnsettledEffect[]> {
    const rows = (await this.#db.read<EffectRow>('list effect records', `SELECT ${COLUMNS} FROM effects WHERE state IN ('sent', 'ambiguous') ORDER BY updated_at, seq`)).rows;
    const now = Date.now();
    return rows.map((row) => ({ ...effectRecordOf(row), owner_alive: row.state === 'sent' && !this.#owner.abandoned(row, now) }));
  }

  async #locked(tx: Transaction, task: string, key: string): Promise<EffectRow | undefined> {
    return (await tx.query<EffectRow>(`SELECT ${COLUMNS} FROM effects WHERE task_id = $1 AND effect_key = $2 FOR UPDATE`, [task, key])).rows[0];
  }

  /** This owner holds the record from before the commit; if the transaction does not commit, it lets go again. */
  #hold(tx: Transaction, task: string, key: string): void {
    this.#owner.hold(task, key);
    tx.onAbort(() => this.#owner.letGo(task, key));
  }

  async #adoptRow(tx: Transaction, row: EffectRow, nowIso: string): Promise<EffectRecord> {
    const o = this.#owner;
    // An ambiguous record becomes `sent` by this owner while it is reconciled (as in SQLite's store).
    await tx.query(`UPDATE effects SET state = 'sent', owner = $1, owner_pid = $2, owner_host = $3, updated_at = $4 WHERE task_id = $5 AND effect_key = $6`, [
      o.id,
      o.pid,
      o.host,
      nowIso,
      row.task_id,
      row.effect_key,
    ]);
    this.#hold(tx, row.task_id, row.effect_key);
    // updated_at stays when it was sent (or found ambiguous): what the settling receipt reports.
    return { ...effectRecordOf(row), state: 'sent', owner: o.id, owner_pid: o.pid, owner_host: o.host };
  }

  async #seize(tx: Transaction, task: TaskId, key: string): Promise<TakeOver> {
    const row = await this.#locked(tx, task, key);
    if (!row) return { kind: 'absent' };
    switch (row.state) {
      case 'sent':
        if (!this.#owner.abandoned(row, Date.now())) return { kind: 'in_progress', record: effectRecordOf(row) };
        return { kind: 'taken', record: await this.#adoptRow(tx, row, new Date().toISOString()) };
      case 'ambiguous':
        return { kind: 'taken', record: await this.#adoptRow(tx, row, new Date().toISOString()) };
      case 'claimed':
        return this.#owner.abandoned(row, Date.now()) ? { kind: 'settled', record: effectRecordOf(row) } : { kind: 'in_progress', record: effectRecordOf(row) };
      case 'completed':
      case 'released':
        return { kind: 'settled', record: effectRecordOf(row) };
    }
  }

  /**
   * One step of the state machine. With `write` false (the inspection before normalize) a
   * call that may go ahead gets `free` and nothing is written.
   */
  async #decide(tx: Transaction, req: ClaimRequest, write: boolean): Promise<ClaimResult> {
    const nowIso = new Date().toISOString();
    let row = await this.#locked(tx, req.task_id, req.effect_key);
    if (!row) {
      if (!write) return { kind: 'free' };
      const o = this.#owner;
      const inserted = await tx.query(
        `INSERT INTO effects (task_id, effect_key, logical_effect_id, idempotency_key, args_digest, tool, tool_version, state,
           attempt_id, owner, owner_pid, owner_host, deadline, receipt_id, intent, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'claimed', $8, $9, $10, $11, $12, NULL, NULL, $13, $13)
         ON CONFLICT (task_id, effect_key) DO NOTHING`,
        [req.task_id, req.effect_key, req.logical_effect_id, req.idempotency_key, req.args_digest, req.tool, req.tool_version, req.attempt_id, o.id, o.pid, o.host, req.deadline, nowIso],
      );
      if (inserted.rowCount === 1) {
        this.#hold(tx, req.task_id, req.effect_key);
        return { kind: 'new' };
      }
      // A concurrent claim inserted it first (and has committed: the insert waited for it).
      row = await this.#locked(tx, req.task_id, req.effect_key);
      if (!row) throw new Error(`effect record ${req.task_id}/${req.effect_key} vanished during a claim`);
    }
    if (row.args_digest !== req.args_digest || row.tool !== req.tool) return { kind: 'conflict', record: effectRecordOf(row) };
    const reclaim = async (): Promise<ClaimResult> => {
      if (!write) return { kind: 'free' };
      const o = this.#owner;
      await tx.query(
        `UPDATE effects SET state = 'claimed', attempt_id = $1, owner = $2, owner_pid = $3, owner_host = $4, receipt_id = NULL, intent = NULL, updated_at = $5
         WHERE task_id = $6 AND effect_key = $7`,
        [req.attempt_id, o.id, o.pid, o.host, nowIso, req.task_id, req.effect_key],
      );
      this.#hold(tx, req.task_id, req.effect_key);
      return { kind: 'new' };
    };
    switch (row.state) {
      case 'completed': {
        const id = row.receipt_id;
        const stored = id ? (await tx.query<{ body: string; digest: string }>(`SELECT body, digest FROM receipts WHERE receipt_id = $1`, [id])).rows[0] : undefined;
        if (!id || stored === undefined) return { kind: 'ambiguous', record: effectRecordOf(row) };
        return { kind: 'replay', receipt: { ...unsealCanonical(stored.body, stored.digest as Digest, id), replay: true } };
      }
      case 'released':
        return reclaim();
      case 'claimed':
        // Nothing was sent: an abandoned claim is as good as released.
        return this.#owner.abandoned(row, Date.now()) ? reclaim() : { kind: 'in_progress', record: effectRecordOf(row) };
      case 'sent':
        if (!this.#owner.abandoned(row, Date.now())) return { kind: 'in_progress', record: effectRecordOf(row) };
        // Its owner is gone after the effect may have started: whoever retries settles it first.
        return req.safe_to_repeat ? reclaim() : { kind: 'reconcile', record: await this.#adoptRow(tx, row, nowIso) };
      case 'ambiguous':
        // May have happened: a retry asks the tool's reconcile() first, never runs it blindly.
        return req.safe_to_repeat ? reclaim() : { kind: 'reconcile', record: await this.#adoptRow(tx, row, nowIso) };
    }
  }
}
