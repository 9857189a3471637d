// Filename mode: a glob against the file name (or the whole path, when it has a slash), or a
// substring of the path. Reads no file.
import { globMatcher } from './candidates.js';
import type { FileHits } from './engines/types.js';
import type { FsSearchArgs } from './schema.js';

export function filenameHits(files: readonly string[], start: number, a: FsSearchArgs): Generator<FileHits> {
  const isGlob = /[*?[\]{}]/.test(a.query);
  const glob = isGlob ? globMatcher([a.query], !a.case_sensitive) : null;
  const needle = a.case_sensitive ? a.query : a.query.toLowerCase();
  return (function* () {
    for (let i = start; i < files.length; i++) {
      const path = files[i] as string;
      let column = 0;
      let end = 0;
      if (glob) {
        if (!glob(path)) continue;
        // A glob names the whole path (with a slash) or the file name.
        const base = a.query.includes('/') ? 0 : path.lastIndexOf('/') + 1;
        column = Buffer.byteLength(path.slice(0, base)) + 1;
        end = Buffer.byteLength(path) + 1;
      } else {
        const at = (a.case_sensitive ? path : path.toLowerCase()).lastIndexOf(needle);
        if (at === -1) continue;
        column = Buffer.byteLength(path.slice(0, at)) + 1;
        end = column + Buffer.byteLength(path.slice(at, at + needle.length));
      }
      yield { path, hits: [{ line: 0, column, end_column: end, text: path }], count: 1 };
    }
  })();
}
