import { ToolgateError, type AttemptId, type Envelope, type NormalizedAction, type Receipt } from '../../protocol/index.js';
import type { AnyTool } from '../../registry/index.js';
import type { EffectStore } from '../../store/index.js';
import { randomUUID } from 'node:crypto';

/** The key of a call's logical effect, when it has one. */
export function effectKeyOf(env: Envelope): string | null {
  if (env.idempotency_key !== undefined) return `k:${env.idempotency_key}`;
  if (env.logical_effect_id !== undefined) return `e:${env.logical_effect_id}`;
  return null;
}

export type Claimed = { readonly kind: 'none' } | { readonly kind: 'held'; readonly key: string } | { readonly kind: 'replay'; readonly receipt: Receipt };

/**
 * The claim and intent stages. A keyed call goes through the idempotency state machine; an
 * unkeyed call of an effectful tool gets a fresh key, so its durable intent row exists before
 * any effect. Unkeyed reads have no effect to record.
 */
export function claimStage(
  effects: EffectStore,
  env: Envelope,
  tool: AnyTool,
  action: NormalizedAction,
  args: unknown,
  attempt: AttemptId,
  deadline: number,
): Claimed {
  let key = effectKeyOf(env);
  if (key === null) {
    if (tool.effect_class === 'read' && action.effect_class === 'read') return { kind: 'none' };
    key = `auto:${randomUUID()}`;
  }
  const r = effects.claim({
    task_id: env.task_id,
    effect_key: key,
    logical_effect_id: env.logical_effect_id ?? null,
    idempotency_key: env.idempotency_key ?? null,
    args_digest: action.args_digest,
    tool: tool.name,
    tool_version: tool.version,
    attempt_id: attempt,
    deadline,
    arguments: args,
    safe_to_repeat: tool.idempotency === 'safe_to_repeat',
  });
  switch (r.kind) {
    case 'new':
      return { kind: 'held', key };
    case 'replay':
      return { kind: 'replay', receipt: r.receipt };
    case 'conflict':
      throw new ToolgateError('idempotency_conflict', 'this idempotency key was used with different arguments', {
        key,
        args_digest: action.args_digest,
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
