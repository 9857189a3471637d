import { ToolgateError, errorBody, receiptSkeleton, type AttemptId, type LogicalEffectId, type Receipt, type TaskId } from '../protocol/index.js';
import type { AnyTool, ReconcileVerdict } from '../registry/index.js';
import type { EffectRecord, UnsettledEffect } from '../store/index.js';
import type { ReconcileParts as RuntimeParts } from './parts.js';
import { redactStage } from './stages/redact.js';

export type Settlement = 'completed' | 'released' | 'unknown';

export interface ReconcileEntry {
  readonly task_id: string;
  readonly effect_key: string;
  readonly tool: string;
  readonly tool_version: string;
  readonly settled: Settlement;
  readonly reason: string | null;
  readonly receipt_id: string | null;
}

export interface ReconcileReport {
  readonly examined: number;
  readonly entries: readonly ReconcileEntry[];
}

/** An effect that waits for reconcile, as `reconcile --list` shows it. */
export interface UnsettledEntry extends UnsettledEffect {
  /** Since the record last changed (it was sent, or found ambiguous). */
  readonly age_ms: number;
}

/** Who settled an effect: its tool's reconcile(), or an operator with a reason. */
type SettledBy = { readonly by: 'reconcile' } | { readonly by: 'operator'; readonly reason: string };

export async function listUnsettled(parts: RuntimeParts, now = Date.now()): Promise<UnsettledEntry[]> {
  return (await parts.store.listUnsettled()).map((e) => ({ ...e, age_ms: Math.max(0, now - Date.parse(e.updated_at)) }));
}

function toolOf(parts: RuntimeParts, rec: EffectRecord): AnyTool | undefined {
  return parts.registry.tools().find((t) => t.name === rec.tool && t.version === rec.tool_version);
}

/**
 * Commits the receipt that settles an effect record, in the transaction that moves the record:
 * `completed` (a retry replays this receipt) or `released` (a retry runs the effect).
 */
async function commitSettlement(parts: RuntimeParts, rec: EffectRecord, settled: 'completed' | 'released', by: SettledBy, evidence: Readonly<Record<string, unknown>>, result: unknown): Promise<Receipt> {
  const previous: Receipt | undefined = rec.receipt_id ? await parts.store.getReceipt(rec.receipt_id) : undefined;
  const now = new Date().toISOString();
  const reconciliation = { settled, by: by.by, ...(by.by === 'operator' ? { reason: by.reason } : {}), previous_receipt_id: rec.receipt_id, sent_at: rec.updated_at };
  const raw = {
    ...receiptSkeleton(rec.task_id, rec.attempt_id as AttemptId, now),
    tool: rec.tool,
    tool_version: rec.tool_version,
    logical_effect_id: rec.logical_effect_id as LogicalEffectId | null,
    idempotency_key: rec.idempotency_key,
    normalized_action: previous?.normalized_action ?? null,
    registry_revision: previous?.registry_revision ?? null,
    runtime_digest: parts.runtimeDigest,
    status: settled === 'completed' ? ('succeeded' as const) : ('failed' as const),
    error: settled === 'completed' ? null : errorBody('execution_failed', `reconciled by ${by.by}: the effect did not happen; a retry will run it`, reconciliation),
    result: result ?? { reconciliation },
    evidence: { ...evidence, reconciliation },
  };
  // The whole body, as for any receipt: paths in the action and the evidence can hold secrets too.
  const red = redactStage(toolOf(parts, rec) ?? null, raw, parts.secrets, []);
  const body = { ...raw, ...red.body, redactions: red.notes };
  try {
    return await parts.store.commit({ body, effect: { key: rec.effect_key, state: settled } });
  } finally {
    await parts.store.letGo(rec.task_id, rec.effect_key);
  }
}

/**
 * Settles one record the caller has taken over (sent by a gone owner, or ambiguous) through its
 * tool's reconcile(). `args` are the retry's validated arguments (same digest), or null.
 */
export async function reconcileRecord(parts: RuntimeParts, rec: EffectRecord, args: unknown): Promise<{ entry: ReconcileEntry; receipt: Receipt | null }> {
  try {
    return await settleThroughTool(parts, rec, args);
  } finally {
    // Settled or not (the store may have failed), this runtime no longer works on the record.
    await parts.store.letGo(rec.task_id, rec.effect_key);
  }
}

async function settleThroughTool(parts: RuntimeParts, rec: EffectRecord, args: unknown): Promise<{ entry: ReconcileEntry; receipt: Receipt | null }> {
  const base = { task_id: rec.task_id, effect_key: rec.effect_key, tool: rec.tool, tool_version: rec.tool_version };
  const tool = toolOf(parts, rec);
  let verdict: ReconcileVerdict;
  if (!tool?.reconcile) verdict = { settled: 'unknown', reason: tool ? 'the tool has no reconcile()' : 'this runtime has no such tool version' };
  else {
    const previous = rec.receipt_id ? await parts.store.getReceipt(rec.receipt_id) : undefined;
    try {
      verdict = await tool.reconcile({
        workspace: parts.workspace,
        artifacts: parts.artifacts,
        task_id: rec.task_id,
        logical_effect_id: rec.logical_effect_id as LogicalEffectId | null,
        intent: rec.intent,
        arguments: args,
        action: previous?.normalized_action ?? null,
        revision: { current: async () => `r${await parts.store.currentRevision()}`, advance: async () => `r${await parts.store.advanceRevision()}` },
      });
    } catch (e) {
      if (ToolgateError.isInstance(e) && e.code === 'store_unavailable') throw e;
      verdict = { settled: 'unknown', reason: `reconcile failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  switch (verdict.settled) {
    case 'unknown':
      // Only what reconcile cannot tell is left ambiguous: an operator settles it.
      await parts.store.settle(rec.task_id, rec.effect_key, 'ambiguous');
      return { entry: { ...base, settled: 'unknown', reason: verdict.reason, receipt_id: null }, receipt: null };
    case 'completed':
    case 'released': {
      const receipt = await commitSettlement(parts, rec, verdict.settled, { by: 'reconcile' }, verdict.evidence, verdict.settled === 'completed' ? verdict.result : undefined);
      return { entry: { ...base, settled: verdict.settled, reason: null, receipt_id: receipt.receipt_id }, receipt };
    }
  }
}

/** Settles every ambiguous record and every sent record whose owner is gone. */
export async function reconcileEffects(parts: RuntimeParts): Promise<ReconcileReport> {
  const unsettled = (await parts.store.listUnsettled()).filter((e) => !e.owner_alive);
  const entries: ReconcileEntry[] = [];
  for (const e of unsettled) {
    const taken = await parts.store.takeOver(e.task_id, e.effect_key);
    if (taken.kind !== 'taken') continue; // settled or resumed meanwhile
    entries.push((await reconcileRecord(parts, taken.record, null)).entry);
  }
  return { examined: entries.length, entries };
}

/**
 * An operator's settlement of an effect reconcile cannot decide (e.g. an interrupted
 * shell.exec): `completed` (a retry replays) or `released` (a retry runs), with the reason
 * recorded in the receipt that settles it.
 */
export async function settleEffect(parts: RuntimeParts, task: TaskId, key: string, settled: 'completed' | 'released', reason: string): Promise<Receipt> {
  if (reason.trim() === '') throw new ToolgateError('invalid_arguments', 'settling an effect needs a reason', { faults: [{ pointer: '/reason', message: 'empty' }] });
  const taken = await parts.store.takeOver(task, key);
  switch (taken.kind) {
    case 'absent':
      throw new ToolgateError('not_found', `no effect ${key} in task ${task}`, { task_id: task, effect_key: key });
    case 'in_progress':
      throw new ToolgateError('effect_in_progress', `effect ${key} is still being executed by its runtime`, { task_id: task, effect_key: key, state: taken.record.state, attempt_id: taken.record.attempt_id });
    case 'settled':
      throw new ToolgateError('invalid_resource', `effect ${key} is ${taken.record.state}; there is nothing to settle`, { task_id: task, effect_key: key, state: taken.record.state });
    case 'taken':
      return commitSettlement(parts, taken.record, settled, { by: 'operator', reason }, {}, undefined);
  }
}
