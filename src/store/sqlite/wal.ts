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

const WAL_INDEX_VERSION = 3007000;

/**
 * How many frames the WAL holds, read from the WAL-index header in the `-shm` file
 * (https://www.sqlite.org/walformat.html §2.1: `iVersion` 3007000 at offset 0 and `mxFrame` at
 * 16, 32-bit in native byte order): better-sqlite3 exposes neither sqlite3_wal_hook nor the
 * connection's write counters. `null` when the file or its header is not one this code knows.
 * Read without SQLite's locks, the count can be a commit stale: it decides which thread commits,
 * never what is written. The file is opened once: SQLite removes it only when the last
 * connection closes, and the store's own stays open as long as this reader.
 */
export class WalIndex {
  readonly #path: string;
  readonly #buf = Buffer.alloc(20);
  readonly #le = endianness() === 'LE';
  #fd = -1;

  constructor(dbPath: string) {
    this.#path = `${dbPath}-shm`;
  }

  frames(): number | null {
    try {
      if (this.#fd < 0) this.#fd = openSync(this.#path, constants.O_RDONLY);
      if (readSync(this.#fd, this.#buf, 0, 20, 0) < 20) return null;
      const u32 = (at: number): number => (this.#le ? this.#buf.readUInt32LE(at) : this.#buf.readUInt32BE(at));
      return u32(0) === WAL_INDEX_VERSION ? u32(16) : null;
    } catch {
      return null;
    }
  }

  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
  }
}
