// The policy layer's durable state on PostgreSQL (tables of PG_POLICY_MIGRATIONS): issued
// grants and denial counts here, approvals and budgets in their own files. Shared by every host
// on the database: an approval granted on one is honoured on another, a budget is one budget.
import type { TaskId } from '../../protocol/index.js';
import { grantDigest, type DenialStore, type Grant, type GrantStore, type PolicyStores } from '../../policy/index.js';
import type { Database } from './database.js';
import { PgApprovalStore } from './policy-approvals.js';
import { PgBudgetStore } from './policy-budgets.js';

class PgDenialStore implements DenialStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async denialCount(task: TaskId, key: string): Promise<number> {
    const r = await this.#db.read<{ count: number }>('read the denial count', 'SELECT count FROM policy_denials WHERE task_id = $1 AND denial_key = $2', [task, key]);
    return r.rows[0]?.count ?? 0;
  }

  async recordDenial(task: TaskId, key: string, now: number): Promise<number> {
    const r = await this.#db.query<{ count: number }>(
      'record the denial',
      `INSERT INTO policy_denials (task_id, denial_key, count, last_at) VALUES ($1, $2, 1, $3)
       ON CONFLICT (task_id, denial_key) DO UPDATE SET count = policy_denials.count + 1, last_at = $3
       RETURNING count`,
      [task, key, now],
    );
    return (r.rows[0] as { count: number }).count;
  }
}

class PgGrantStore implements GrantStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async getGrant(task: TaskId): Promise<Grant | undefined> {
    const r = await this.#db.read<{ grant_json: string }>('read the grant', 'SELECT grant_json FROM policy_grants WHERE task_id = $1', [task]);
    const row = r.rows[0];
    return row && (JSON.parse(row.grant_json) as Grant);
  }

  async putGrantIfAbsent(grant: Grant): Promise<Grant> {
    // The first insert wins (a concurrent one waits for it, then does nothing); both read the winner.
    return this.#db.transaction('store the grant', async (tx) => {
      await tx.query('INSERT INTO policy_grants (task_id, digest, grant_json, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (task_id) DO NOTHING', [
        grant.subject.task_id,
        grantDigest(grant),
        JSON.stringify(grant),
        Date.now(),
      ]);
      const row = (await tx.query<{ grant_json: string }>('SELECT grant_json FROM policy_grants WHERE task_id = $1', [grant.subject.task_id])).rows[0];
      return JSON.parse((row as { grant_json: string }).grant_json) as Grant;
    });
  }
}

export function postgresPolicyStores(db: Database): PolicyStores {
  return {
    grants: new PgGrantStore(db),
    approvals: new PgApprovalStore(db),
    budgets: new PgBudgetStore(db),
    denials: new PgDenialStore(db),
  };
}
