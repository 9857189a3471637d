import { fstatSync, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { forEachChunk } from '../../resources/index.js';

/** Whole-file facts that every page reports: digest, line count, and whether it is text. */
export interface FileInfo {
  readonly sha256: string;
  readonly size: number;
  readonly total_lines: number;
  readonly binary: boolean;
}

const SNIFF = 8192;

function keyOf(st: Stats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/**
 * Computes FileInfo in one pass, and remembers it by (device, inode, size, mtime, ctime) so
 * that paging a large file hashes it once. ctime moves on every write, so a changed file is
 * never served from the cache. Bounded: the least recently used entries are dropped first, so
 * a file being paged stays cached while other files are read.
 */
export class FileInfoCache {
  readonly #entries: LRUCache<string, FileInfo>;

  constructor(max = 256) {
    this.#entries = new LRUCache({ max });
  }

  /**
   * `head` may hold the first bytes of the file already read (the small-file fast path). A scan
   * runs off the main thread a chunk at a time and stops with the signal (a huge sparse file).
   * `opened` is the fd's fstat taken before `head` was read, when the caller has it: the key is
   * then the file as it was before the read, so a write during the read changes ctime and the
   * next call misses instead of finding the old digest under the new times.
   */
  async get(fd: number, signal: AbortSignal, head?: Buffer, opened?: Stats): Promise<{ info: FileInfo; stat: Stats }> {
    const stat = opened ?? fstatSync(fd);
    const key = keyOf(stat);
    const hit = this.#entries.get(key);
    if (hit) return { info: hit, stat };
    const info = head && head.length === stat.size ? infoOf(head) : await scan(fd, signal);
    this.#entries.set(key, info);
    return { info, stat };
  }
}

function countNewlines(buf: Buffer, end = buf.length): number {
  let n = 0;
  let i = buf.indexOf(10);
  while (i !== -1 && i < end) {
    n++;
    i = buf.indexOf(10, i + 1);
  }
  return n;
}

function isBinary(head: Buffer): boolean {
  const sniff = head.subarray(0, SNIFF);
  if (sniff.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(sniff.subarray(0, lastCharBoundary(sniff)));
    return false;
  } catch {
    return true;
  }
}

/** Length of the longest prefix that does not end inside a UTF-8 sequence. */
export function lastCharBoundary(buf: Buffer, end = buf.length): number {
  let i = end;
  // Step back over at most 3 continuation bytes to the lead byte, and check it is complete.
  let back = 0;
  while (i > 0 && back < 4 && ((buf[i - 1] as number) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return end;
  const lead = buf[i - 1] as number;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need === back + 1 ? end : i - 1;
}

function infoOf(buf: Buffer): FileInfo {
  const nl = countNewlines(buf);
  const total = buf.length === 0 ? 0 : nl + (buf[buf.length - 1] === 10 ? 0 : 1);
  return { sha256: createHash('sha256').update(buf).digest('hex'), size: buf.length, total_lines: total, binary: isBinary(buf) };
}

async function scan(fd: number, signal: AbortSignal): Promise<FileInfo> {
  const hash = createHash('sha256');
  let nl = 0;
  let last = -1;
  let binary = false;
  const size = await forEachChunk(fd, 0, signal, (chunk, pos) => {
    if (pos === 0) binary = isBinary(chunk);
    hash.update(chunk);
    nl += countNewlines(chunk);
    last = chunk[chunk.length - 1] as number;
  });
  const total = size === 0 ? 0 : nl + (last === 10 ? 0 : 1);
  return { sha256: hash.digest('hex'), size, total_lines: total, binary };
}
