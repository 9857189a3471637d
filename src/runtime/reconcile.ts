import { errorBody, type AttemptId, type Receipt } from '../protocol/index.js';
import type { EffectRecord } from '../store/index.js';
import type { RuntimeParts } from './runtime.js';
import { receiptSkeleton } from './runtime.js';

export interface ReconcileEntry {
  readonly task_id: string;
  readonly effect_key: string;
  readonly tool: string;
  readonly tool_version: string;
  readonly settled: 'completed' | 'released' | 'unknown';
  readonly reason: string | null;
  readonly receipt_id: string | null;
}

export interface ReconcileReport {
  readonly examined: number;
  readonly entries: readonly ReconcileEntry[];
}

/**
 * Asks each ambiguous effect's tool what the authoritative resource says, and settles the
 * record: `completed` (a retry replays the reconciliation receipt) or `released` (a retry runs).
 */
export async function reconcileEffects(parts: RuntimeParts): Promise<ReconcileReport> {
  const records = parts.store.listEffects({ state: 'ambiguous' });
  const entries: ReconcileEntry[] = [];
  for (const rec of records) entries.push(await reconcileOne(parts, rec));
  return { examined: records.length, entries };
}

async function reconcileOne(parts: RuntimeParts, rec: EffectRecord): Promise<ReconcileEntry> {
  const base = { task_id: rec.task_id, effect_key: rec.effect_key, tool: rec.tool, tool_version: rec.tool_version };
  const tool = parts.registry.tools().find((t) => t.name === rec.tool && t.version === rec.tool_version);
  if (!tool?.reconcile) return { ...base, settled: 'unknown', reason: tool ? 'the tool has no reconcile()' : 'this runtime has no such tool version', receipt_id: null };
  const previous: Receipt | undefined = rec.receipt_id ? parts.store.getReceipt(rec.receipt_id) : undefined;
  const verdict = await tool.reconcile({
    workspace: parts.workspace,
    artifacts: parts.artifacts,
    task_id: rec.task_id,
    logical_effect_id: (rec.logical_effect_id ?? null) as never,
    arguments: rec.arguments,
    action: previous?.normalized_action ?? null,
  });
  if (verdict.settled === 'unknown') return { ...base, settled: 'unknown', reason: verdict.reason, receipt_id: null };
  const now = new Date().toISOString();
  const body = {
    ...receiptSkeleton(rec.task_id, rec.attempt_id as AttemptId, now),
    tool: rec.tool,
    tool_version: rec.tool_version,
    logical_effect_id: rec.logical_effect_id as never,
    idempotency_key: rec.idempotency_key,
    normalized_action: previous?.normalized_action ?? null,
    registry_revision: previous?.registry_revision ?? null,
    status: verdict.settled === 'completed' ? ('succeeded' as const) : ('failed' as const),
    error: verdict.settled === 'completed' ? null : errorBody('execution_failed', 'reconciled: the effect did not happen; a retry will run it', { settled: 'released' }),
    result: { reconciliation: { settled: verdict.settled, previous_receipt_id: rec.receipt_id } },
    evidence: verdict.evidence,
  };
  const receipt = parts.store.commit({ body, effect: { key: rec.effect_key, state: verdict.settled } });
  return { ...base, settled: verdict.settled, reason: null, receipt_id: receipt.receipt_id };
}
