// The store's ledger: one running digest over every receipt in commit order, across tasks. The
// per-task hash chains cannot see a missing tail (a task head rolled back with its receipts, or
// an older copy of the database, verifies); the ledger gives the whole store one head that a
// signed checkpoint kept outside the database can pin (src/store/audit/, docs/audit.md).
//
// Each receipt row carries its position (`ledger_pos`, 1, 2, …) and the ledger after it
// (`ledger`); one row (`audit_ledger`) holds the head, and the commit that appends a receipt
// moves it in the same transaction, so the ledger order is the commit order on either backend.
import { createHash } from 'node:crypto';

/** The ledger after `pos` receipts: what a checkpoint signs. */
export interface LedgerHead {
  readonly pos: number;
  readonly head: string;
}

/** The ledger after one more receipt: sha256 over a domain tag, the previous head and the receipt's digest. */
export function ledgerStep(prev: string | null, digest: string): string {
  return createHash('sha256').update(`toolgate.ledger.v1\0${prev ?? ''}\0${digest}`).digest('hex');
}

/** One row as the ledger check reads it, in `ledger_pos` order. */
export interface LedgerRow {
  readonly ledger_pos: number;
  readonly digest: string;
  readonly ledger: string | null;
}

export interface LedgerReport {
  readonly ok: boolean;
  /** Receipts in the ledger (rows with a position). */
  readonly receipts: number;
  /** The ledger recomputed from the rows' digests; null when there are none. */
  readonly head: LedgerHead | null;
  /** The head row the store keeps (moved by each commit). */
  readonly stored: LedgerHead | null;
  readonly broken: readonly { readonly pos: number; readonly reason: string }[];
}

/**
 * Recomputes the ledger from the rows' digests (fed in position order) and compares it with what
 * is stored: positions without gaps from 1, each row's ledger column, the head row. `at` keeps
 * the recomputed head at the positions a checkpoint names.
 */
export class LedgerCheck {
  readonly #want: ReadonlySet<number>;
  readonly at = new Map<number, string>();
  readonly #broken: { pos: number; reason: string }[] = [];
  #pos = 0;
  #head: string | null = null;

  constructor(at: readonly number[] = []) {
    this.#want = new Set(at);
  }

  add(row: LedgerRow): void {
    const pos = Number(row.ledger_pos);
    if (pos !== this.#pos + 1) this.#broken.push({ pos, reason: `receipt at ledger position ${pos} follows position ${this.#pos} (receipts removed?)` });
    this.#pos = pos;
    this.#head = ledgerStep(this.#head, row.digest);
    if (row.ledger !== this.#head) this.#broken.push({ pos, reason: 'the ledger column does not match the receipts before it (a receipt rewritten or removed)' });
    // A break above does not stop the recomputation: a checkpoint is compared with what the rows say.
    if (this.#want.has(pos)) this.at.set(pos, this.#head);
  }

  report(stored: LedgerHead | null): LedgerReport {
    const head = this.#head === null ? null : { pos: this.#pos, head: this.#head };
    const broken = [...this.#broken];
    const storedPos = stored?.pos ?? 0;
    if (storedPos !== (head?.pos ?? 0) || (stored !== null && storedPos > 0 && stored.head !== head?.head)) {
      broken.push({ pos: storedPos, reason: `the ledger head row names ${storedPos} receipts, the receipts make ${head?.pos ?? 0} (receipts removed or the head row rewritten?)` });
    }
    return { ok: broken.length === 0, receipts: this.#pos, head, stored: storedPos > 0 ? stored : null, broken };
  }
}

/** What a store offers the audit layer: the ledger's head, and its check. */
export interface LedgerStore {
  /** The stored head row (null while no receipt is in the ledger). */
  ledgerHead(): Promise<LedgerHead | null>;
  /** The ledger column of the receipt at `pos` (null when there is none). */
  ledgerAt(pos: number): Promise<string | null>;
  /** The check over every receipt of the ledger (one snapshot), keeping the heads at `at`. */
  checkLedger(at?: readonly number[]): Promise<LedgerReport & { readonly at: ReadonlyMap<number, string> }>;
}
