// Filename mode, like `find -name`: a name without glob characters is the exact file name, a
// glob is matched against the file name (or the whole path, when it has a slash). A query with
// a slash and no glob names a path: the path itself or any path ending in `/query`. With
// `filename_match: 'substring'` the query is a substring of the path (the behaviour before
// names were exact). Reads no file.
import { globMatcher } from './candidates.js';
import type { FileHits } from './engines/types.js';
import type { FsSearchArgs } from './schema.js';

const GLOB_CHARS = /[*?[\]{}]/;

/** The byte columns (1-based, end exclusive) of the part of `path` that a hit covers, or null when it does not match. */
type PathMatcher = (path: string) => { column: number; end: number } | null;

function bytes(s: string): number {
  return Buffer.byteLength(s);
}

function matcherOf(a: FsSearchArgs): PathMatcher {
  const fold = (s: string): string => (a.case_sensitive ? s : s.toLowerCase());
  const query = fold(a.query);
  if (a.filename_match === 'substring') {
    return (path) => {
      const at = fold(path).lastIndexOf(query);
      if (at === -1) return null;
      const column = bytes(path.slice(0, at)) + 1;
      return { column, end: column + bytes(path.slice(at, at + a.query.length)) };
    };
  }
  const hasSlash = a.query.includes('/');
  const whole = (path: string): { column: number; end: number } => ({ column: 1, end: bytes(path) + 1 });
  const name = (path: string): { column: number; end: number } => ({ column: bytes(path.slice(0, path.lastIndexOf('/') + 1)) + 1, end: bytes(path) + 1 });
  if (GLOB_CHARS.test(a.query)) {
    const glob = globMatcher([a.query], !a.case_sensitive);
    return (path) => (glob(path) ? (hasSlash ? whole(path) : name(path)) : null);
  }
  if (hasSlash) {
    const suffix = '/' + query.replace(/^\.?\/+/, '');
    const exact = suffix.slice(1);
    return (path) => {
      const p = fold(path);
      if (p === exact) return whole(path);
      if (!p.endsWith(suffix)) return null;
      return { column: bytes(path.slice(0, path.length - suffix.length + 1)) + 1, end: bytes(path) + 1 };
    };
  }
  return (path) => (fold(path.slice(path.lastIndexOf('/') + 1)) === query ? name(path) : null);
}

export function filenameHits(files: readonly string[], start: number, a: FsSearchArgs): Generator<FileHits> {
  const match = matcherOf(a);
  return (function* () {
    for (let i = start; i < files.length; i++) {
      const path = files[i] as string;
      const hit = match(path);
      if (hit === null) continue;
      yield { path, hits: [{ line: 0, column: hit.column, end_column: hit.end, text: path }], count: 1 };
    }
  })();
}
