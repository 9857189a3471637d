// Long synchronous work on the event loop, cut into turns. Workspace operations run their
// system calls synchronously (a promise per call costs several times the time, and a directory
// fd must not change under a walk), so a walk of 100,000 entries, or 256 MiB of preimages read,
// hashed and written, held the event loop, and so every other call on the server, for as long
// as it took (fs.delete of a 20,000-file tree: 0.6 s; of one 200 MB file: 0.5 s). A TreePacer
// says when such work lets the event loop run: every PACE_ENTRIES entries or PACE_BYTES bytes.
// Counted, not timed: the same input pauses as often on a fast machine as on a slow one.

/** Entries handled between two turns of the event loop. */
export const PACE_ENTRIES = 256;
/** Bytes read, hashed or written between two turns of the event loop. */
export const PACE_BYTES = 8 * 1024 * 1024;

/** The next turn of the event loop: timers, I/O and other calls run before the work goes on. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * When long work lets the event loop run: `due` after each entry (with the bytes it handled),
 * then `await pause()` when it says so. `pause` is injectable (tests count the turns).
 */
export class TreePacer {
  #entries = 0;
  #bytes = 0;
  constructor(readonly pause: () => Promise<void> = nextTurn) {}

  /** One entry handled (and the bytes it took): true when the event loop should run now. */
  due(bytes = 0): boolean {
    this.#entries++;
    return this.dueBytes(bytes);
  }

  /** Bytes handled within an entry: true when the event loop should run now. */
  dueBytes(bytes: number): boolean {
    this.#bytes += bytes;
    if (this.#entries < PACE_ENTRIES && this.#bytes < PACE_BYTES) return false;
    this.#entries = 0;
    this.#bytes = 0;
    return true;
  }

  /** Calls `each` on successive slices of at most PACE_BYTES of `total` bytes, pausing when due. */
  async slices(total: number, each: (offset: number, length: number) => void): Promise<void> {
    for (let at = 0; at < total; at += PACE_BYTES) {
      const n = Math.min(PACE_BYTES, total - at);
      each(at, n);
      if (this.dueBytes(n)) await this.pause();
    }
  }
}
