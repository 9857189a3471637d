// The receipt chain check every backend runs (`audit verify`): the same recomputation over the
// same stored columns, so a chain verifies, or breaks at the same receipt for the same reason,
// whichever database holds it. Backends only read rows; this decides.
import { bodyOf, receiptDigest, receiptIdMatches, sealCanonical, unsealCanonical, type Digest, type Receipt, type ReceiptBody } from '../protocol/index.js';
import type { ChainReport } from './types.js';

/** A stored receipt as every backend keeps it: the sealed canonical body and the columns that index it. */
export interface StoredReceiptRow {
  readonly seq: number;
  readonly receipt_id: string;
  readonly task_id: string;
  readonly logical_effect_id: string | null;
  readonly idempotency_key: string | null;
  readonly tool: string;
  readonly status: string;
  readonly created_at: string;
  readonly digest: string;
  readonly prev_digest: string | null;
  readonly body: string;
}

export const RECEIPT_COLUMNS = 'seq, receipt_id, task_id, logical_effect_id, idempotency_key, tool, status, created_at, digest, prev_digest, body';

/**
 * Walks receipts fed in (task, insertion) order and recomputes everything from the stored body:
 * its digest, its id, the columns that index it, and the link to the previous receipt; then
 * checks that each task head names its last receipt (a deleted tail shows there).
 */
export class ChainCheck {
  readonly #heads = new Map<string, string | null>();
  readonly #brokenTasks = new Set<string>();
  readonly #broken: { task_id: string; seq: number; receipt_id: string; reason: string }[] = [];
  #receipts = 0;

  add(row: StoredReceiptRow): void {
    this.#receipts++;
    if (this.#brokenTasks.has(row.task_id)) return;
    const fail = (reason: string): void => {
      this.#broken.push({ task_id: row.task_id, seq: row.seq, receipt_id: row.receipt_id, reason });
      this.#brokenTasks.add(row.task_id);
    };
    const prev = this.#heads.has(row.task_id) ? (this.#heads.get(row.task_id) as string | null) : null;
    let receipt: Receipt;
    try {
      receipt = unsealCanonical(row.body, row.digest as Digest, row.receipt_id);
    } catch {
      fail('body is not JSON');
      return;
    }
    const digest = receiptDigest(bodyOf(receipt));
    if (digest !== receipt.digest) fail('body does not match its digest');
    else if (digest !== row.digest) fail('digest column does not match the body');
    else if (!receiptIdMatches(receipt.receipt_id, digest, receipt.started_at) || receipt.receipt_id !== row.receipt_id) fail('receipt id is not derived from its digest');
    else if (
      receipt.task_id !== row.task_id ||
      receipt.status !== row.status ||
      receipt.tool !== row.tool ||
      receipt.finished_at !== row.created_at ||
      receipt.logical_effect_id !== row.logical_effect_id ||
      receipt.idempotency_key !== row.idempotency_key
    )
      fail('an indexed column does not match the body');
    else if ((receipt.prev_receipt_digest ?? null) !== prev || (row.prev_digest ?? null) !== prev) fail('link to the previous receipt is broken');
    this.#heads.set(row.task_id, row.digest);
  }

  /** The report, given every task row's head (of the checked task, or all). */
  report(tasks: readonly { readonly task_id: string; readonly head_digest: string | null }[]): ChainReport {
    const broken = [...this.#broken];
    for (const t of tasks) {
      if (this.#brokenTasks.has(t.task_id)) continue;
      const last = this.#heads.get(t.task_id) ?? null;
      if ((t.head_digest ?? null) !== last) {
        broken.push({ task_id: t.task_id, seq: -1, receipt_id: '', reason: 'task head does not name its last receipt (receipts removed?)' });
      }
    }
    return { ok: broken.length === 0, tasks: tasks.length, receipts: this.#receipts, broken };
  }
}

/**
 * The next link of a task's chain: the body sealed onto the task's head (its one canonical
 * serialization, hashed and stored as is), and the columns that index it.
 */
export function sealLink(body: Omit<ReceiptBody, 'prev_receipt_digest'>, prev: Digest | null): { readonly receipt: Receipt; readonly row: Omit<StoredReceiptRow, 'seq'> } {
  const { receipt, text } = sealCanonical({ ...body, prev_receipt_digest: prev });
  return {
    receipt,
    row: {
      receipt_id: receipt.receipt_id,
      task_id: receipt.task_id,
      logical_effect_id: receipt.logical_effect_id,
      idempotency_key: receipt.idempotency_key,
      tool: receipt.tool,
      status: receipt.status,
      created_at: receipt.finished_at,
      digest: receipt.digest,
      prev_digest: prev,
      body: text,
    },
  };
}
