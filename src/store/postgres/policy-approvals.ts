// Approval requests on PostgreSQL (table policy_approvals), with the SQLite store's semantics
// (sqlite/policy-approvals.ts); `seq` keeps insertion order where SQLite has its rowid.
import type { TaskId } from '../../protocol/index.js';
import type { ApprovalAsk, ApprovalBinding, ApprovalRecord, ApprovalStatus, ApprovalStore, AskUse } from '../../policy/index.js';
import { approvalRecordOf, type ApprovalRow } from '../rows.js';
import type { Database } from './database.js';


type AskRow = ApprovalAsk & { readonly used_at: number | null };
const ASK_COLUMNS = 'id, approval_id, task_id, action_digest, created_at, expires_at, used_at';

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

  async recordAsk(ask: ApprovalAsk): Promise<void> {
    await this.#db.transaction('record the approval question', async (tx) => {
      await tx.query('DELETE FROM policy_approval_asks WHERE expires_at < $1', [ask.created_at]);
      await tx.query(`INSERT INTO policy_approval_asks (${ASK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, NULL)`, [
        ask.id,
        ask.approval_id,
        ask.task_id,
        ask.action_digest,
        ask.created_at,
        ask.expires_at,
      ]);
    });
  }

  async useAsk(id: string, at: number): Promise<AskUse> {
    // One statement: the row lock makes a concurrent use on another host wait, then find used_at set.
    const used = (
      await this.#db.query<AskRow>(
        'use the approval question',
        `UPDATE policy_approval_asks SET used_at = $1 WHERE id = $2 AND used_at IS NULL AND expires_at > $1 RETURNING ${ASK_COLUMNS}`,
        [at, id],
      )
    ).rows[0];
    if (used) return { ok: true, ask: askOf(used) };
    const row = (await this.#db.read<AskRow>('read the approval question', `SELECT ${ASK_COLUMNS} FROM policy_approval_asks WHERE id = $1`, [id])).rows[0];
    return { ok: false, reason: row === undefined ? 'unknown' : row.used_at !== null ? 'used' : 'expired' };
  }
}

function askOf(r: AskRow): ApprovalAsk {
  return { id: r.id, approval_id: r.approval_id, task_id: r.task_id, action_digest: r.action_digest, created_at: r.created_at, expires_at: r.expires_at };
}
