// Approval requests in the runtime's SQLite file (table policy_approvals, created by
// migratePolicyTables in policy-tables.ts).
import type { Database, Statement } from 'better-sqlite3';
import type { Digest, NormalizedAction, TaskId } from '../../protocol/index.js';
import type { ApprovalBinding, ApprovalRecord, ApprovalStatus, ApprovalStore } from '../../policy/index.js';

interface ApprovalRow {
  id: string;
  task_id: string;
  action_digest: string;
  policy_version: string;
  grant_digest: string;
  action_json: string;
  reasons_json: string;
  determining_json: string;
  status: ApprovalStatus;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
}

function approvalOf(r: ApprovalRow): ApprovalRecord {
  return {
    id: r.id,
    task_id: r.task_id as TaskId,
    action_digest: r.action_digest as Digest,
    policy_version: r.policy_version,
    grant_digest: r.grant_digest as Digest,
    action: JSON.parse(r.action_json) as NormalizedAction,
    reasons: JSON.parse(r.reasons_json) as string[],
    determining: JSON.parse(r.determining_json) as string[],
    status: r.status,
    created_at: r.created_at,
    expires_at: r.expires_at,
    decided_at: r.decided_at,
    decided_by: r.decided_by,
  };
}

export class SqliteApprovalStore implements ApprovalStore {
  readonly #find: Statement<[string, string, string, string], ApprovalRow>;
  readonly #get: Statement<[string], ApprovalRow>;
  readonly #insert: Statement<[ApprovalRow]>;
  readonly #decide: Statement<[ApprovalStatus, number, string, number, string, number]>;
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
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
    return r && approvalOf(r);
  }

  #read(id: string): ApprovalRecord | undefined {
    const r = this.#get.get(id);
    return r && approvalOf(r);
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
    return this.#db.prepare<string[], ApprovalRow>(sql).all(...params).map(approvalOf);
  }
}
