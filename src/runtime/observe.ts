import type { Receipt, ReceiptBody } from '../protocol/index.js';
import type { StageTime } from './stage-clock.js';
import type { Settlement } from './reconcile.js';

/**
 * What an observer learns of one ended call: its receipt as committed (redacted like every
 * stored receipt), or, when the store refused the commit, the redacted body it would have had.
 */
export interface EndedCall {
  readonly receipt: Omit<ReceiptBody, 'prev_receipt_digest'> & Partial<Pick<Receipt, 'receipt_id' | 'replay'>>;
  /** The stages it went through, in order (a replay or a refusal stops early). */
  readonly stages: readonly StageTime[];
  /** `performance.now()` at arrival and at the end (after the commit and the release of what it held). */
  readonly start: number;
  readonly end: number;
}

/** Who settled an ambiguous effect: the tool's reconcile (a retry's or `toolgate reconcile`'s), or an operator. */
export type SettledBy = 'retry' | 'reconcile' | 'operator';

/**
 * Told of every call and settlement of one runtime (the metrics of docs/operating.md). Called
 * after the receipt is committed; a throw is swallowed: an observer never changes a call.
 */
export interface CallObserver {
  callEnded(call: EndedCall): void;
  reconciled?(tool: string, settled: Settlement, by: SettledBy): void;
}
