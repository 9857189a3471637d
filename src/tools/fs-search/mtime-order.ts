// filename mode with `order: "mtime"`: every matching file, newest first (ties in path order),
// as agents' Glob tools list them. The order depends on every match's mtime, so a continuation
// is bound to the stat of every candidate (statDigest over the whole list, not up to a cursor),
// and a later page resumes by count: the snapshot it was cut from is proven unchanged.
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { FileHits } from './engines/types.js';
import { filenameHits } from './filename.js';
import { comparePaths } from './order.js';
import type { FsSearchArgs } from './schema.js';

/** The filename hits of `files` in mtime order; a file gone since the listing is left out. */
export function hitsByMtime(root: string, files: readonly string[], a: FsSearchArgs): FileHits[] {
  const timed: { hit: FileHits; mtime: bigint }[] = [];
  for (const hit of filenameHits(files, 0, a)) {
    try {
      // Metadata only, as statDigest reads it: nothing is opened or followed.
      timed.push({ hit, mtime: lstatSync(join(root, hit.path), { bigint: true }).mtimeNs });
    } catch {
      continue;
    }
  }
  timed.sort((x, y) => (x.mtime === y.mtime ? comparePaths(x.hit.path, y.hit.path) : x.mtime > y.mtime ? -1 : 1));
  return timed.map((t) => t.hit);
}
