import { closeSync, fdatasync, fstatSync, fsyncSync, openSync, statSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import type { Database } from 'better-sqlite3';

/**
 * Runs a write transaction with `synchronous = NORMAL` and notes it on `wal`: its durability is
 * the WalSync's (a `durable()` after it, or the next receipt's, covers it: the WAL is synced
 * as a whole). Without a WalSync (durability `normal`) it just runs. The connection is FULL
 * again afterwards for every other write. `exec`, not a prepared statement: SQLite applies this
 * pragma when it is prepared, not when it runs.
 */
export function relaxedWrite<T>(db: Database, wal: WalSync | null, run: () => T): T {
  if (wal === null) return run();
  db.exec('PRAGMA synchronous = NORMAL');
  try {
    return run();
  } finally {
    wal.wrote();
    db.exec('PRAGMA synchronous = FULL');
  }
}

/**
 * Group commit with the fsync off the event loop. A receipt is written to the WAL with
 * `synchronous = NORMAL` (no fsync in the commit) and is returned only after an fdatasync of
 * the WAL file that started after its write: the guarantee of `synchronous = FULL` (the WAL is
 * synced after the commit, before anyone hears of it), but the sync runs on libuv's thread
 * pool while the event loop serves other calls, and every commit written while one sync was in
 * flight shares the next one. With FULL, SQLite's fsync (0.2–1.4 ms here) held the event loop
 * for every lone commit, and concurrent calls finishing in different turns each paid one.
 *
 * Why this holds: the WAL is append-only between checkpoints and its frames are checksummed in
 * order, so after a crash SQLite keeps the longest valid prefix: a synced commit and everything
 * before it survive; an unsynced one after it may not, and it was not returned. A checkpoint
 * syncs the WAL before copying it and the database after (SQLite does this in NORMAL too), and
 * a WAL reused after a checkpoint is synced by the same fdatasync before its commit is returned.
 * The fd is our own on the same file (fsync flushes the file, whichever descriptor wrote); it
 * is reopened if the WAL was replaced. A failed sync poisons the store: Linux may forget the
 * error after reporting it once, so a later sync that succeeds proves nothing (the
 * PostgreSQL "fsyncgate" lesson); every waiting and later commit fails `store_unavailable`.
 */
interface Waiter {
  readonly gen: number;
  readonly resolve: () => void;
  readonly reject: (e: unknown) => void;
}

export class WalSync {
  readonly #path: string;
  #fd = -1;
  #ino = -1;
  /** Writes made (a generation count) and the generation the last finished sync covers. */
  #written = 0;
  #synced = 0;
  #syncing = false;
  #failed: unknown = null;
  #waiters: Waiter[] = [];

  constructor(walPath: string) {
    this.#path = walPath;
  }

  /** Notes a write to the WAL; returns its generation, for `durable`. */
  wrote(): number {
    return ++this.#written;
  }

  /** A synchronous sync covered everything written so far (a FULL commit's own fsync). */
  syncedAll(): void {
    this.#synced = this.#written;
  }

  /** Whether everything written so far is on stable storage. */
  get caughtUp(): boolean {
    return this.#synced >= this.#written && this.#failed === null;
  }

  /** Resolves once a sync that started after generation `gen` was written has finished. */
  durable(gen: number = this.#written): Promise<void> {
    if (this.#failed !== null) return Promise.reject(this.#failed);
    if (gen <= this.#synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ gen, resolve, reject });
      this.#kick();
    });
  }

  #kick(): void {
    if (this.#syncing || this.#waiters.length === 0) return;
    let fd: number;
    try {
      fd = this.#open();
    } catch (e) {
      this.#fail(e);
      return;
    }
    const target = this.#written;
    this.#syncing = true;
    fdatasync(fd, (err) => {
      this.#syncing = false;
      if (err) {
        this.#fail(err);
        return;
      }
      this.#synced = Math.max(this.#synced, target);
      const still: Waiter[] = [];
      for (const w of this.#waiters) {
        if (w.gen <= target) w.resolve();
        else still.push(w);
      }
      this.#waiters = still;
      this.#kick();
    });
  }

  /** Our descriptor on the current WAL file; a new one if the file was replaced. */
  #open(): number {
    const ino = statSync(this.#path).ino;
    if (this.#fd >= 0 && ino === this.#ino) return this.#fd;
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = openSync(this.#path, constants.O_RDONLY);
    this.#ino = fstatSync(this.#fd).ino;
    // The WAL's name must survive too: its directory entry is synced once per file.
    const dir = openSync(dirname(this.#path), constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    return this.#fd;
  }

  #fail(e: unknown): void {
    this.#failed = e;
    const waiting = this.#waiters;
    this.#waiters = [];
    for (const w of waiting) w.reject(e);
  }

  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
  }
}
