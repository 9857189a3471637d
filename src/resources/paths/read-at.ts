import { readSync } from 'node:fs';

/**
 * Fills `buf` from `offset` of an open fd; the part read, shorter only at end of file. Calls
 * nothing but `readSync`: fs.search's scan workers run its source (engines/scan-workers.ts).
 */
export function readInto(fd: number, buf: Buffer, offset = 0): Buffer {
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return got === buf.length ? buf : buf.subarray(0, got);
}

/** Reads up to `length` bytes at `offset` from an open fd; shorter only at end of file. */
export function readAt(fd: number, offset: number, length: number): Buffer {
  return readInto(fd, Buffer.allocUnsafe(length), offset);
}
