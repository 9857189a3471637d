// Reads whose size the agent controls run on libuv's thread pool, a bounded chunk at a time, and
// stop when the call's signal aborts: a 16 GiB sparse file once held the event loop for 154 s
// (readSync in a loop), so no other call, timer or deadline could run.
import { read } from 'node:fs';

/** One read(2) at `position` on the thread pool. */
function readOnce(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buf, offset, length, position, (err, n) => (err ? reject(err) : resolve(n)));
  });
}

/**
 * Reads of at most this many bytes of a regular file run on the event loop. Bounded (a page
 * cache copy of 64 KiB is ~5 µs here), while the trip through the thread pool cost 50–120 µs of
 * wall time per call on a loaded 2-core machine (bench/call-overhead): the waker yields the core
 * to the pool thread. Only for an fd opened as a regular file (openRegular), never a FIFO or
 * device; the read itself is read-at.ts's `readAt`.
 */
export const SYNC_READ_MAX = 64 * 1024;

/** Largest single read: small enough that an abort is seen within one chunk. */
export const READ_CHUNK = 1 << 20;

/** Reads up to `length` bytes at `offset`; shorter only at end of file. Throws the signal's reason on abort. */
export async function readAtAsync(fd: number, offset: number, length: number, signal: AbortSignal): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    signal.throwIfAborted();
    const n = await readOnce(fd, buf, got, Math.min(READ_CHUNK, length - got), offset + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/**
 * Calls `each` with successive chunks of the file from `start` to end of file (the buffer is
 * reused: copy what must outlive the call). Checks the signal before every chunk.
 */
export async function forEachChunk(fd: number, start: number, signal: AbortSignal, each: (chunk: Buffer, position: number) => boolean | void): Promise<number> {
  const buf = Buffer.allocUnsafe(READ_CHUNK);
  let pos = start;
  for (;;) {
    signal.throwIfAborted();
    const n = await readOnce(fd, buf, 0, buf.length, pos);
    if (n === 0) return pos;
    const stop = each(buf.subarray(0, n), pos);
    pos += n;
    if (stop === true) return pos;
  }
}
