// One session's stdout (or stderr) is shared by every command it runs and by its background
// jobs. The driver ends each command's share with a marker carrying that command's nonce; this
// splits the stream at it. Bytes that arrive while no command runs (a background job's late
// output) are kept, bounded, for the next command.

/** Background output kept between commands; past it the oldest is dropped and counted. */
const BETWEEN_LIMIT_BYTES = 64 * 1024;

export interface SplitSink {
  /** The running command's share of the stream. */
  data(chunk: Buffer): void;
  /** Its marker came: the command's share is complete. */
  ended(): void;
}

export class MarkerSplitter {
  #marker: Buffer | null = null;
  #sink: SplitSink | null = null;
  /** A tail that may be the start of the marker, held until the next chunk decides. */
  #carry: Buffer = Buffer.alloc(0);
  #between: Buffer[] = [];
  #betweenBytes = 0;
  droppedBetween = 0;

  /** Starts a command's share; what arrived since the last one is handed over first. */
  begin(marker: Buffer, sink: SplitSink): number {
    this.#marker = marker;
    this.#sink = sink;
    const early = this.#betweenBytes;
    for (const b of this.#between) sink.data(b);
    this.#between = [];
    this.#betweenBytes = 0;
    return early;
  }

  push(chunk: Buffer): void {
    let buf = this.#carry.length ? Buffer.concat([this.#carry, chunk]) : chunk;
    this.#carry = Buffer.alloc(0);
    while (buf.length > 0) {
      if (!this.#marker || !this.#sink) {
        this.#keep(buf);
        return;
      }
      const at = buf.indexOf(this.#marker);
      if (at >= 0) {
        if (at > 0) this.#sink.data(buf.subarray(0, at));
        const sink = this.#sink;
        const length = this.#marker.length;
        this.#marker = null;
        this.#sink = null;
        sink.ended();
        buf = buf.subarray(at + length);
        continue;
      }
      const hold = this.#partialTail(buf, this.#marker);
      if (hold < buf.length) this.#sink.data(buf.subarray(0, buf.length - hold));
      this.#carry = Buffer.from(buf.subarray(buf.length - hold));
      return;
    }
  }

  /** The stream closed: whatever is held belongs to the running command, if any. */
  close(): void {
    if (this.#carry.length && this.#sink) this.#sink.data(this.#carry);
    this.#carry = Buffer.alloc(0);
  }

  /** Length of the longest suffix of `buf` that is a proper prefix of `marker`. */
  #partialTail(buf: Buffer, marker: Buffer): number {
    const max = Math.min(buf.length, marker.length - 1);
    for (let n = max; n > 0; n--) {
      if (buf.subarray(buf.length - n).equals(marker.subarray(0, n))) return n;
    }
    return 0;
  }

  #keep(buf: Buffer): void {
    this.#between.push(Buffer.from(buf));
    this.#betweenBytes += buf.length;
    while (this.#betweenBytes > BETWEEN_LIMIT_BYTES && this.#between.length > 0) {
      const first = this.#between.shift() as Buffer;
      this.#betweenBytes -= first.length;
      this.droppedBetween += first.length;
    }
  }
}
