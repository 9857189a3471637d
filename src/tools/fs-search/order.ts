// The one order of results: path in UTF-8 byte order, then line, then column. UTF-8 byte order
// equals code point order, which differs from JavaScript's UTF-16 `<` only above U+FFFF.

/** Compares two strings by their UTF-8 bytes (git's and ripgrep's byte order). */
export function comparePaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (a code point above U+FFFF) sorts after every BMP unit in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Two lists, each already in path order, merged into one in path order (by `pathOf` of each item). */
export function mergeInOrder<T>(a: readonly T[], b: readonly T[], pathOf: (item: T) => string): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(comparePaths(pathOf(a[i] as T), pathOf(b[j] as T)) <= 0 ? (a[i++] as T) : (b[j++] as T));
  while (i < a.length) out.push(a[i++] as T);
  while (j < b.length) out.push(b[j++] as T);
  return out;
}

/** Where a page stopped: after the whole file `path`, or after the item at `line:column` in it. */
export type Cursor =
  | { readonly path: string; readonly line: null; readonly column: null }
  | { readonly path: string; readonly line: number; readonly column: number };

/** Index of the first file at or after the cursor's file in an ordered list. */
export function resumeIndex(files: readonly string[], cursor: Cursor | null): number {
  if (cursor === null) return 0;
  let lo = 0;
  let hi = files.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePaths(files[mid] as string, cursor.path) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (cursor.line === null && lo < files.length && files[lo] === cursor.path) lo++;
  return lo;
}

/** True when the position `line:column` in the cursor's file was already returned. */
export function alreadyReturned(cursor: Cursor | null, path: string, line: number, column: number): boolean {
  if (cursor === null || cursor.path !== path) return false;
  if (cursor.line === null) return true;
  return line < cursor.line || (line === cursor.line && column <= cursor.column);
}
