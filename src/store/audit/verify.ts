import type { LedgerReport } from '../ledger.js';
import type { Store } from '../types.js';
import { checkpointFault, type Checkpoint } from './checkpoint.js';

/** What one checkpoint says of the database: whether the receipts it covers are all there, unchanged. */
export interface CheckpointVerdict {
  readonly source: string;
  readonly ok: boolean;
  readonly pos: number | null;
  readonly at: string | null;
  readonly reason: string | null;
}

export interface LedgerVerdict extends LedgerReport {
  readonly checkpoint: CheckpointVerdict | null;
}

/**
 * The ledger check and a checkpoint against it: the checkpoint must be signed by the trusted key,
 * and the ledger recomputed from the receipts' digests must reach its position with its head. A
 * lost tail (or an older database) has fewer receipts; a rewritten one (even with its task's
 * chain sealed again) has another head; `checkpoint` null checks the ledger alone.
 */
export async function verifyLedger(store: Store, trustedKeyId: string, checkpoint: { readonly source: string; readonly value: unknown } | null): Promise<LedgerVerdict | null> {
  if (store.ledger === undefined) return null;
  const fault = checkpoint === null ? null : checkpointFault(checkpoint.value, trustedKeyId);
  const cp = checkpoint !== null && fault === null ? (checkpoint.value as Checkpoint) : null;
  const report = await store.ledger.checkLedger(cp === null ? [] : [cp.pos]);
  const { at, ...ledger } = report;
  if (checkpoint === null) return { ...ledger, checkpoint: null };
  if (cp === null) return { ...ledger, ok: false, checkpoint: { source: checkpoint.source, ok: false, pos: null, at: null, reason: `the checkpoint cannot be trusted: ${fault ?? ''}` } };
  const head = at.get(cp.pos);
  const reason = head === undefined
    ? `the checkpoint covers ${cp.pos} receipts, the database holds ${report.receipts}: receipts were lost (or an older database was restored)`
    : head !== cp.head
      ? `the receipts up to ${cp.pos} do not make the checkpoint's head: a receipt was rewritten or removed`
      : null;
  return { ...ledger, ok: ledger.ok && reason === null, checkpoint: { source: checkpoint.source, ok: reason === null, pos: cp.pos, at: cp.at, reason } };
}
