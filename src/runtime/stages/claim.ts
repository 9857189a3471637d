import { ToolgateError, type AttemptId, type Envelope, type NormalizedAction, type Receipt } from '../../protocol/index.js';
import type { Digest } from '../../protocol/index.js';
import type { AnyTool } from '../../registry/index.js';
import type { ClaimRequest, ClaimResult, EffectRecord, EffectStore } from '../../store/index.js';
import type { Call } from '../call.js';
import type { Validated } from './validate.js';
import type { RunningEffects } from '../attach.js';
import type { RunningCalls } from '../running-calls.js';
import { randomUUID } from 'node:crypto';

/** The key of a call's logical effect, when it has one. */
export function effectKeyOf(env: Envelope): string | null {
  if (env.idempotency_key !== undefined) return `k:${env.idempotency_key}`;
  if (env.logical_effect_id !== undefined) return `e:${env.logical_effect_id}`;
  return null;
}

type Claimed =
  | { readonly kind: 'held'; readonly key: string }
  | { readonly kind: 'replay'; readonly receipt: Receipt };

/** What settles a record taken over from a gone owner (the tool's reconcile()). */
export type Reconciler = (record: EffectRecord) => Promise<{ settled: 'completed' | 'released' | 'unknown'; receipt: Receipt | null; reason: string | null }>;

export interface ClaimServices {
  readonly store: Pick<EffectStore, 'findEffect' | 'inspect' | 'claim'>;
  /** Settles a taken-over record through its tool's reconcile(), given the retry's validated arguments. */
  readonly reconcile: (record: EffectRecord, args: unknown) => ReturnType<Reconciler>;
  /** Deadline of a call whose envelope has none, from its arrival. */
  readonly defaultDeadlineMs: number;
  /** The keyed effects this runtime runs now, which a re-issued call attaches to. */
  readonly effects: Pick<RunningEffects, 'attach'>;
  /** How long past its deadline a call takes to end and commit (the abort grace and a margin). */
  readonly settleMs: number;
  /** Whether the task was cancelled while the call waited (it then runs nothing). */
  readonly running: Pick<RunningCalls, 'cancelled'>;
}

/** Waits for the call of this runtime that runs a record to end; `absent` when none does. */
type Attacher = (record: EffectRecord) => Promise<'ended' | 'absent'>;

function attacherOf(s: ClaimServices, call: Call): Attacher {
  return async (record) => {
    const how = await s.effects.attach(record, { deadline: call.deadline, settleMs: s.settleMs, signal: call.options.signal, cancel: call.options.cancel, onProgress: call.options.onProgress });
    // A task cancelled meanwhile stopped the effect; the waiting call must not go on to run it.
    if (how === 'ended' && s.running.cancelled(call.draft.task_id)) throw new ToolgateError('cancelled', 'the task is cancelled', { by: 'task', phase: 'admission' });
    return how;
  };
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
 * Maps what the store found to the call's next step. A record sent by an owner that is gone,
 * or ambiguous, is reconciled first (the store hands it over as sent by this runtime):
 * completed → its recovered receipt is the answer; released → the call goes on; unknown →
 * back to ambiguous and reconciliation_required (asked again at the next retry; an operator
 * may settle it). A record in progress under a call of this runtime is waited for, then looked
 * at again (attach.ts); one in progress elsewhere is effect_in_progress.
 */
async function decide(r: ClaimResult, key: string, req: ClaimRequest, reconcile: Reconciler, again: () => ClaimResult | Promise<ClaimResult>, attach: Attacher): Promise<Claimed | 'free'> {
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
          return decide(await again(), key, req, () => Promise.reject(new ToolgateError('internal_error', 'a record was reconciled twice in one call', { key })), again, attach);
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
    case 'in_progress': {
      // Run by a call of this runtime: wait for it as one more caller, then look again (its
      // receipt is a replay; a release lets this call run it; ambiguity is reconciled).
      if ((await attach(r.record)) === 'ended') {
        const next = await decide(await again(), key, req, reconcile, again, attach);
        return next !== 'free' && next.kind === 'replay' ? { kind: 'replay', receipt: { ...next.receipt, attached: true } } : next;
      }
      throw new ToolgateError('effect_in_progress', 'the same logical effect is being executed by another call', {
        key,
        state: r.record.state,
        attempt_id: r.record.attempt_id,
      });
    }
    case 'ambiguous':
      // A completed record whose receipt is missing: nothing to replay, nothing to reconcile against.
      throw new ToolgateError('reconciliation_required', 'a previous attempt may have caused this effect; reconcile before retrying', {
        key,
        state: 'ambiguous',
        attempt_id: r.record.attempt_id,
        receipt_id: r.record.receipt_id,
      });
  }
}

/**
 * The examine stage: the call's deadline, and a keyed call's record before its resources are
 * normalized, so that a retry after a crash finds its effect even when the effect made
 * normalize refuse (a renamed or deleted path is `not_found` now). The deadline is absolute
 * and covers the queue; a retry keeps the first. Writes nothing unless a gone owner's record
 * must be reconciled. Returns the receipt that answers the call (a replay), or null.
 */
export async function examineStage(s: ClaimServices, call: Call, env: Envelope, tool: AnyTool, valid: Validated): Promise<Receipt | null> {
  const key = effectKeyOf(env);
  const recorded = key === null ? undefined : await s.store.findEffect(env.task_id, key);
  const requested = env.deadline !== undefined ? Date.parse(env.deadline) : call.arrived + s.defaultDeadlineMs;
  call.deadline = recorded ? Math.min(recorded.deadline, requested) : requested;
  if (key === null) return null;
  const req = claimRequestOf(env, key, tool, valid.digest, call.draft.attempt_id, call.deadline);
  const examined = await decide(await s.store.inspect(req), key, req, (rec) => s.reconcile(rec, valid.args), () => s.store.inspect(req), attacherOf(s, call));
  return examined !== 'free' && examined.kind === 'replay' ? examined.receipt : null;
}

/**
 * The claim stage. A keyed call goes through the idempotency state machine; an unkeyed call of
 * an effectful tool gets a fresh key, so its durable intent row exists before any effect. The
 * call holds the record it claimed until its receipt is committed. Unkeyed reads have no effect
 * to record. Returns the receipt that answers the call (a replay), or null.
 */
export async function claimStage(s: ClaimServices, call: Call, env: Envelope, tool: AnyTool, action: NormalizedAction, args: unknown): Promise<Receipt | null> {
  let key = effectKeyOf(env);
  if (key === null) {
    if (tool.effect_class === 'read' && action.effect_class === 'read') return null;
    key = `auto:${randomUUID()}`;
  }
  const req = claimRequestOf(env, key, tool, action.args_digest, call.draft.attempt_id, call.deadline);
  const claimed = await decide(await s.store.claim(req), key, req, (rec) => s.reconcile(rec, args), () => s.store.claim(req), attacherOf(s, call));
  if (claimed === 'free') throw new ToolgateError('internal_error', 'a claim wrote nothing', { key });
  if (claimed.kind === 'replay') return claimed.receipt;
  call.holdEffect(claimed.key, effectKeyOf(env) !== null);
  return null;
}
