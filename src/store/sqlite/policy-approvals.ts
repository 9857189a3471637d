// Approval requests in the runtime's SQLite file (table policy_approvals, created by
// migratePolicyTables in policy-tables.ts).
import type { Database, Statement } from 'better-sqlite3';
import type { TaskId } from '../../protocol/index.js';
import type { ApprovalAsk, ApprovalBinding, ApprovalRecord, ApprovalStatus, ApprovalStore, AskUse } from '../../policy/index.js';
import { approvalRecordOf, type ApprovalRow } from '../rows.js';

type AskRow = ApprovalAsk & { readonly used_at: number | null };

export class SqliteApprovalStore implements ApprovalStore {
  readonly #find: Statement<[string, string, string, string], ApprovalRow>;
  readonly #get: Statement<[string], ApprovalRow>;
  readonly #insert: Statement<[ApprovalRow]>;
  readonly #decide: Statement<[ApprovalStatus, number, string, number, string, number]>;
  readonly #db: Database;
  readonly #insertAsk: Statement<[ApprovalAsk]>;
  readonly #forgetAsks: Statement<[number]>;
  readonly #useAsk: Statement<[number, string, number], AskRow>;
  readonly #getAsk: Statement<[string], AskRow>;

  constructor(db: Database) {
    this.#db = db;
    this.#insertAsk = db.prepare(
      `INSERT INTO policy_approval_asks (id, approval_id, task_id, action_digest, created_at, expires_at, used_at)
       VALUES (@id, @approval_id, @task_id, @action_digest, @created_at, @expires_at, NULL)`,
    );
    this.#forgetAsks = db.prepare('DELETE FROM policy_approval_asks WHERE expires_at < ?');
    // One statement: SQLite runs it under the write lock, so two uses cannot both see used_at NULL.
    this.#useAsk = db.prepare('UPDATE policy_approval_asks SET used_at = ? WHERE id = ? AND used_at IS NULL AND expires_at > ? RETURNING *');
    this.#getAsk = db.prepare('SELECT * FROM policy_approval_asks WHERE id = ?');
    this.#find = db.prepare(
      `SELECT * FROM policy_approvals WHERE task_id = ? AND action_digest = ? AND policy_version = ? AND grant_digest = ?
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    );
    this.#get = db.prepare('SELECT * FROM policy_approvals WHERE id = ?');
    this.#insert = db.prepare(
      `INSERT INTO policy_approvals (id, task_id, action_digest, policy_version, grant_digest, action_json, reasons_json, determining_json, status, created_at, expires_at, decided_at, decided_by)
       VALUES (@id, @task_id, @action_digest, @policy_version, @grant_digest, @action_json, @reasons_json, @determining_json, @status, @created_at, @expires_at, @decided_at, @decided_by)`,
    );
    this.#decide = db.prepare(
      `UPDATE policy_approvals SET status = ?, decided_at = ?, decided_by = ?, expires_at = ?
       WHERE id = ? AND status = 'pending' AND expires_at > ?`,
    );
  }

  async findApproval(b: ApprovalBinding): Promise<ApprovalRecord | undefined> {
    const r = this.#find.get(b.task_id, b.action_digest, b.policy_version, b.grant_digest);
    return r && approvalRecordOf(r);
  }

  #read(id: string): ApprovalRecord | undefined {
    const r = this.#get.get(id);
    return r && approvalRecordOf(r);
  }

  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    return this.#read(id);
  }

  async createApproval(a: ApprovalRecord): Promise<void> {
    this.#insert.run({
      id: a.id,
      task_id: a.task_id,
      action_digest: a.action_digest,
      policy_version: a.policy_version,
      grant_digest: a.grant_digest,
      action_json: JSON.stringify(a.action),
      reasons_json: JSON.stringify(a.reasons),
      determining_json: JSON.stringify(a.determining),
      status: a.status,
      created_at: a.created_at,
      expires_at: a.expires_at,
      decided_at: a.decided_at,
      decided_by: a.decided_by,
    });
  }

  async decideApproval(id: string, d: { status: 'approved' | 'denied'; by: string; at: number; expires_at: number }): Promise<ApprovalRecord | undefined> {
    const changed = this.#decide.run(d.status, d.at, d.by, d.expires_at, id, d.at).changes;
    return changed === 1 ? this.#read(id) : undefined;
  }

  async listApprovals(filter: { status?: ApprovalStatus; task?: TaskId }): Promise<ApprovalRecord[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.status !== undefined) {
      where.push('status = ?');
      params.push(filter.status);
    }
    if (filter.task !== undefined) {
      where.push('task_id = ?');
      params.push(filter.task);
    }
    const sql = `SELECT * FROM policy_approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, rowid`;
    return this.#db.prepare<string[], ApprovalRow>(sql).all(...params).map(approvalRecordOf);
  }

  async recordAsk(ask: ApprovalAsk): Promise<void> {
    this.#db.transaction(() => {
      this.#forgetAsks.run(ask.created_at);
      this.#insertAsk.run({ id: ask.id, approval_id: ask.approval_id, task_id: ask.task_id, action_digest: ask.action_digest, created_at: ask.created_at, expires_at: ask.expires_at });
    })();
  }

  async useAsk(id: string, at: number): Promise<AskUse> {
    const used = this.#useAsk.get(at, id, at);
    if (used) return { ok: true, ask: askOf(used) };
    const row = this.#getAsk.get(id);
    return { ok: false, reason: row === undefined ? 'unknown' : row.used_at !== null ? 'used' : 'expired' };
  }
}

function askOf(r: AskRow): ApprovalAsk {
  return { id: r.id, approval_id: r.approval_id, task_id: r.task_id, action_digest: r.action_digest, created_at: r.created_at, expires_at: r.expires_at };
}
