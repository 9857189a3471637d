// The row shapes both backends store (sqlite/ and postgres/ keep the same tables and columns) and
// their mapping to the records the interfaces return, so the two stores cannot drift apart.
import type { AttemptId, Digest, NormalizedAction, ReceiptId, TaskId } from '../protocol/index.js';
import type { EffectIntent } from '../registry/index.js';
import type { ApprovalRecord, ApprovalStatus } from '../policy/index.js';
import type { EffectRecord, EffectState } from './types.js';

/** One row of `effects`: the arguments are never stored, only their digest; the intent as JSON. */
export interface EffectRow {
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
  intent: string | null;
  created_at: string;
  updated_at: string;
}

export function effectRecordOf(r: EffectRow): EffectRecord {
  return {
    ...r,
    task_id: r.task_id as TaskId,
    args_digest: r.args_digest as Digest,
    attempt_id: r.attempt_id as AttemptId,
    receipt_id: r.receipt_id as ReceiptId | null,
    intent: r.intent === null ? null : (JSON.parse(r.intent) as EffectIntent),
  };
}

/** One row of `policy_approvals`. */
export interface ApprovalRow {
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

export function approvalRecordOf(r: ApprovalRow): ApprovalRecord {
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
