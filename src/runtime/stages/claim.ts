import { ToolgateError, type AttemptId, type Envelope, type NormalizedAction, type Receipt } from '../../protocol/index.js';
import type { Digest } from '../../protocol/index.js';
import type { AnyTool } from '../../registry/index.js';
import type { ClaimRequest, ClaimResult, EffectRecord } from '../../store/index.js';
import { randomUUID } from 'node:crypto';

/** The key of a call's logical effect, when it has one. */
export function effectKeyOf(env: Envelope): string | null {
  if (env.idempotency_key !== undefined) return `k:${env.idempotency_key}`;
  if (env.logical_effect_id !== undefined) return `e:${env.logical_effect_id}`;
  return null;
}

export type Claimed =
  | { readonly kind: 'none' }
  | { readonly kind: 'held'; readonly key: string }
  | { readonly kind: 'replay'; readonly receipt: Receipt };

/** What settles a record taken over from a gone owner (the tool's reconcile()). */
export type Reconciler = (record: EffectRecord) => Promise<{ settled: 'completed' | 'released' | 'unknown'; receipt: Receipt | null; reason: string | null }>;

export interface ClaimStore {
  inspect(req: ClaimRequest): Promise<ClaimResult>;
  claim(req: ClaimRequest): Promise<ClaimResult>;
}

export function claimRequestOf(env: Envelope, key: string, tool: AnyTool, argsDigest: Digest, attempt: AttemptId, deadline: number): ClaimRequest {
  return {
    task_id: env.task_id,
    effect_key: key,
    logical_effect_id: env.logical_effect_id ?? null,
    idempotency_key: env.idempotency_key ?? null,
    args_digest: argsDigest,
    tool: tool.name,
    tool_version: tool.version,
    attempt_id: attempt,
    deadline,
    safe_to_repeat: tool.idempotency === 'safe_to_repeat',
  };
}

/**
 * Maps what the store found to the call's next step. A record sent by an owner that is gone
 * is reconciled first: completed → its recovered receipt is the answer; released → the call
 * goes on; unknown → reconciliation_required (an operator settles it).
 */
async function decide(r: ClaimResult, key: string, req: ClaimRequest, reconcile: Reconciler, again: () => Promise<ClaimResult>): Promise<Claimed | 'free'> {
  switch (r.kind) {
    case 'new':
      return { kind: 'held', key };
    case 'free':
      return 'free';
    case 'replay':
      return { kind: 'replay', receipt: r.receipt };
    case 'reconcile': {
      const settled = await reconcile(r.record);
      switch (settled.settled) {
        case 'completed':
          if (settled.receipt) return { kind: 'replay', receipt: settled.receipt };
          break;
        case 'released':
          // Nothing happened: the call may run. Look again (another retry may have taken it).
          return decide(await again(), key, req, () => Promise.reject(new ToolgateError('internal_error', 'a record was reconciled twice in one call', { key })), again);
        case 'unknown':
          break;
      }
      throw new ToolgateError('reconciliation_required', 'a previous attempt may have caused this effect and reconcile cannot tell; an operator must settle it', {
        key,
        state: 'ambiguous',
        attempt_id: r.record.attempt_id,
        receipt_id: r.record.receipt_id,
        reason: settled.reason,
      });
    }
    case 'conflict':
      throw new ToolgateError('idempotency_conflict', 'this idempotency key was used with different arguments', {
        key,
        args_digest: req.args_digest,
        recorded_args_digest: r.record.args_digest,
        recorded_tool: r.record.tool,
      });
    case 'in_progress':
      throw new ToolgateError('effect_in_progress', 'the same logical effect is being executed by another call', {
        key,
        state: r.record.state,
        attempt_id: r.record.attempt_id,
      });
    case 'ambiguous':
      throw new ToolgateError('reconciliation_required', 'a previous attempt may have caused this effect; reconcile before retrying', {
        key,
        state: 'ambiguous',
        attempt_id: r.record.attempt_id,
        receipt_id: r.record.receipt_id,
      });
  }
}

/**
 * Examines a keyed call's record before its resources are normalized, so that a retry after
 * a crash finds its effect even when the effect made normalize refuse (a renamed or deleted
 * path is `not_found` now). Writes nothing unless a gone owner's record must be reconciled.
 */
export async function examineStage(store: ClaimStore, req: ClaimRequest, reconcile: Reconciler): Promise<Claimed | 'free'> {
  return decide(await store.inspect(req), req.effect_key, req, reconcile, () => store.inspect(req));
}

/**
 * The claim and intent stages. A keyed call goes through the idempotency state machine; an
 * unkeyed call of an effectful tool gets a fresh key, so its durable intent row exists before
 * any effect. Unkeyed reads have no effect to record.
 */
export async function claimStage(
  store: ClaimStore,
  env: Envelope,
  tool: AnyTool,
  action: NormalizedAction,
  attempt: AttemptId,
  deadline: number,
  reconcile: Reconciler,
): Promise<Claimed> {
  let key = effectKeyOf(env);
  if (key === null) {
    if (tool.effect_class === 'read' && action.effect_class === 'read') return { kind: 'none' };
    key = `auto:${randomUUID()}`;
  }
  const req = claimRequestOf(env, key, tool, action.args_digest, attempt, deadline);
  const claimed = await decide(await store.claim(req), key, req, reconcile, () => store.claim(req));
  if (claimed === 'free') throw new ToolgateError('internal_error', 'a claim wrote nothing', { key });
  return claimed;
}
