// The state database's WAL as files: its fdatasync (the receipt writer's, and a lone commit's on
// the event loop, store.ts) and the WAL-index's frame count.
import { closeSync, constants, fdatasyncSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { endianness } from 'node:os';
import { dirname } from 'node:path';
import { syncFolder } from '../../resources/index.js';

export class WalFile {
  readonly #path: string;
  #fd = -1;
  #ino = -1;

  constructor(path: string) {
    this.#path = path;
  }

  /** fdatasync of the current WAL file (reopened if it was replaced; its directory synced once per file). */
  sync(): void {
    const ino = statSync(this.#path).ino;
    if (this.#fd < 0 || ino !== this.#ino) {
      if (this.#fd >= 0) closeSync(this.#fd);
      this.#fd = openSync(this.#path, constants.O_RDONLY);
      this.#ino = fstatSync(this.#fd).ino;
      syncFolder(dirname(this.#path));
    }
    fdatasyncSync(this.#fd);
  }

  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
  }
}

/** The WAL's size, in frames, from which the receipt writer checkpoints: SQLite's own automatic mark. */
export const CHECKPOINT_FRAMES = 1_000;
/**
 * A WAL this long has not started over after the writer's checkpoints: the writer then
 * checkpoints before its next batch's commit (which starts the WAL over), and the event loop's
 * connection sends it its next lone commit. (tailLeft usually says so long before.)
 */
export const CHECKPOINT_CATCH_UP_FRAMES = 2 * CHECKPOINT_FRAMES;

/** What the WAL-index header says of the WAL: its frames, and how many of them a checkpoint copied into the database. */
export interface WalState {
  readonly frames: number;
  readonly backfilled: number;
}

/**
 * A checkpoint ran beside later commits and left their frames behind (or the WAL is at the
 * catch-up mark): the WAL starts over only at a commit that finds every frame copied, so the next
 * commit goes to the writer, which copies the tail first (a few dozen frames, but ~2 ms here: the
 * database file's fsync is most of it).
 */
export function tailLeft(s: WalState | null): boolean {
  if (s === null || s.frames < CHECKPOINT_FRAMES) return false;
  return (s.backfilled > 0 && s.backfilled < s.frames) || s.frames >= CHECKPOINT_CATCH_UP_FRAMES;
}

const WAL_INDEX_VERSION = 3007000;
/** The WAL-index header's bytes read: two copies of its 48-byte header, then the checkpoint info's `nBackfill`. */
const HEADER_BYTES = 100;

/**
 * The WAL's state read from the WAL-index header in the `-shm` file
 * (https://www.sqlite.org/walformat.html §2.1: `iVersion` 3007000 at offset 0, `mxFrame` at 16,
 * and after the header's two copies the checkpoint info's `nBackfill` at 96, 32-bit in native
 * byte order): better-sqlite3 exposes neither sqlite3_wal_hook nor the connection's write
 * counters. `null` when the file or its header is not one this code knows. Read without SQLite's
 * locks, it can be a commit stale: it decides which thread commits or checkpoints, never what is
 * written. The file is opened once: SQLite removes it only when the last connection closes, and
 * the store's own stays open as long as this reader.
 */
export class WalIndex {
  readonly #path: string;
  readonly #buf = Buffer.alloc(HEADER_BYTES);
  readonly #le = endianness() === 'LE';
  #fd = -1;

  constructor(dbPath: string) {
    this.#path = `${dbPath}-shm`;
  }

  state(): WalState | null {
    try {
      if (this.#fd < 0) this.#fd = openSync(this.#path, constants.O_RDONLY);
      if (readSync(this.#fd, this.#buf, 0, HEADER_BYTES, 0) < HEADER_BYTES) return null;
      const b = this.#buf;
      const u32 = this.#le ? (at: number): number => b.readUInt32LE(at) : (at: number): number => b.readUInt32BE(at);
      return u32(0) === WAL_INDEX_VERSION ? { frames: u32(16), backfilled: u32(96) } : null;
    } catch {
      return null;
    }
  }

  frames(): number | null {
    return this.state()?.frames ?? null;
  }

  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
  }
}
