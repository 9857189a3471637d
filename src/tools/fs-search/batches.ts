// How candidate files are cut into matcher runs.

/**
 * The first batch of a page of matches: big enough to fill a common query's page at once (the
 * bench's `function` needs ~300 files), split in stripes over the cores. Each file costs this
 * thread an open, an fstat, a close and an argument (~3–5 µs); since a ripgrep start is a
 * posix_spawn (no fork), a second batch for a rarer query costs less than opening files a
 * common query never reaches (it was 1,024 while a run cost a fork).
 */
export const FIRST_BATCH = 512;
/** The first batch when every file is parsed (structural search): parsing is costly per file. */
export const FIRST_PARSE_BATCH = 256;
const MIN_BATCH = 256;
const FULL_SCAN_FIRST_BATCH = 4096;
const BATCH_GROWTH = 4;
const MAX_BATCH = 16_384;
/** Well below Linux's 2 MiB for arguments and environment together. */
const MAX_BATCH_ARG_BYTES = 1024 * 1024;

/**
 * Slices of `files` in order, one matcher run each. Sizes start small for a page of matches
 * (large when every file is needed), then follow the hit rate so far: about what the rest of
 * the page needs, at most BATCH_GROWTH times the last, the largest at once while nothing was
 * found (a rare query). They are also capped so that a batch is expected to finish
 * within half the time left: a timeout then loses at most the batch in flight, and the page
 * keeps what the earlier ones found.
 */
export class Batches {
  readonly #started = Date.now();
  #filesDone = 0;
  #consumed: number | null = null;

  /** The matcher stopped early: only the first `n` files of the last batch were searched. */
  consumed(n: number): void {
    this.#consumed = n;
  }

  /**
   * `wanted()`: results the page still has room for, and results found so far; the next batch
   * is sized from the hit rate so far (a rare query gets the largest batch at once).
   */
  constructor(
    private readonly deadline: number,
    private readonly progress: () => { readonly room: number; readonly found: number },
    private readonly first = FIRST_BATCH,
  ) {}

  *over(files: readonly string[], start: number, fullScan: boolean): Generator<readonly string[]> {
    let size = fullScan ? Math.max(FULL_SCAN_FIRST_BATCH, this.first) : this.first;
    let i = start;
    while (i < files.length) {
      let end = i;
      let bytes = 0;
      while (end < files.length && end - i < size && bytes < MAX_BATCH_ARG_BYTES) bytes += Buffer.byteLength(files[end++] as string) + 1;
      this.#consumed = null;
      yield files.slice(i, end);
      const taken = Math.min(this.#consumed ?? end - i, end - i);
      this.#filesDone += taken;
      i += Math.max(1, taken);
      const { room, found } = this.progress();
      const perFile = found / this.#filesDone;
      size = perFile === 0 ? MAX_BATCH : Math.min(MAX_BATCH, size * BATCH_GROWTH, Math.ceil((room / perFile) * 1.5));
      const elapsed = Math.max(1, Date.now() - this.#started);
      const fits = Math.floor(((this.deadline - Date.now()) / 2) * (this.#filesDone / elapsed));
      size = Math.max(MIN_BATCH, Math.min(size, fits));
    }
  }
}
