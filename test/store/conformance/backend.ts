// What a store backend gives the conformance suite. Everything backend-specific (a folder, a
// database URL, raw SQL to tamper with a receipt) stays behind these functions, so the
// assertions are the same for SQLite and PostgreSQL.
import type { Store } from '../../../src/store/index.js';

export interface ConformanceBackend {
  /** Makes a fresh, empty state and returns its reference (a folder, a database URL + schema). */
  fresh(): Promise<string>;
  /** Opens one more store instance (its own connection and owner id) on the state `ref`. */
  open(ref: string): Promise<Store>;
  /** Removes the state. */
  drop(ref: string): Promise<void>;
  /**
   * A module (absolute path) exporting `open(ref): Promise<Store>` like `open` above: child
   * processes load it to run real concurrent store instances in other processes.
   */
  readonly module: string;
  /**
   * Changes a stored receipt behind the store's back. `guarded: true` goes through the storage's
   * own protection and must be refused (resolves false when refused); `guarded: false` lifts it
   * first, as an attacker with the file or the database would, so that verifyChain must notice.
   */
  tamper(ref: string, receiptId: string, how: 'alter' | 'delete', guarded: boolean): Promise<boolean>;
}
