// Approval requests on PostgreSQL (table policy_approvals), with the SQLite store's semantics
// (sqlite/policy-approvals.ts); `seq` keeps insertion order where SQLite has its rowid.
import type { TaskId } from '../../protocol/index.js';
import type { ApprovalBinding, ApprovalRecord, ApprovalStatus, ApprovalStore } from '../../policy/index.js';
import { approvalRecordOf, type ApprovalRow } from '../rows.js';
import type { Database } from './database.js';


const COLUMNS = 'id, task_id, action_digest, policy_version, grant_digest, action_json, reasons_json, determining_json, status, created_at, expires_at, decided_at, decided_by';


export class PgApprovalStore implements ApprovalStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async findApproval(b: ApprovalBinding): Promise<ApprovalRecord | undefined> {
    const r = await this.#db.read<ApprovalRow>(
      'read the approval',
      `SELECT ${COLUMNS} FROM policy_approvals WHERE task_id = $1 AND action_digest = $2 AND policy_version = $3 AND grant_digest = $4
       ORDER BY created_at DESC, seq DESC LIMIT 1`,
      [b.task_id, b.action_digest, b.policy_version, b.grant_digest],
    );
    const row = r.rows[0];
    return row && approvalRecordOf(row);
  }

  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    const row = (await this.#db.read<ApprovalRow>('read the approval', `SELECT ${COLUMNS} FROM policy_approvals WHERE id = $1`, [id])).rows[0];
    return row && approvalRecordOf(row);
  }

  async createApproval(a: ApprovalRecord): Promise<void> {
    await this.#db.query(
      'record the approval request',
      `INSERT INTO policy_approvals (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        a.id,
        a.task_id,
        a.action_digest,
        a.policy_version,
        a.grant_digest,
        JSON.stringify(a.action),
        JSON.stringify(a.reasons),
        JSON.stringify(a.determining),
        a.status,
        a.created_at,
        a.expires_at,
        a.decided_at,
        a.decided_by,
      ],
    );
  }

  async decideApproval(id: string, d: { status: 'approved' | 'denied'; by: string; at: number; expires_at: number }): Promise<ApprovalRecord | undefined> {
    // One statement: of two hosts deciding at once, one changes the row, the other finds it decided.
    const r = await this.#db.query<ApprovalRow>(
      'decide the approval',
      `UPDATE policy_approvals SET status = $1, decided_at = $2, decided_by = $3, expires_at = $4
       WHERE id = $5 AND status = 'pending' AND expires_at > $2
       RETURNING ${COLUMNS}`,
      [d.status, d.at, d.by, d.expires_at, id],
    );
    const row = r.rows[0];
    return row && approvalRecordOf(row);
  }

  async listApprovals(filter: { status?: ApprovalStatus; task?: TaskId }): Promise<ApprovalRecord[]> {
    const where: string[] = [];
    const params: string[] = [];
    if (filter.status !== undefined) {
      params.push(filter.status);
      where.push(`status = $${params.length}`);
    }
    if (filter.task !== undefined) {
      params.push(filter.task);
      where.push(`task_id = $${params.length}`);
    }
    const sql = `SELECT ${COLUMNS} FROM policy_approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, seq`;
    return (await this.#db.read<ApprovalRow>('list approvals', sql, params)).rows.map(approvalRecordOf);
  }
}
