// JSON pointers (RFC 6901), one implementation for every layer: fault locations, redaction
// notes, grant-file faults, schema-diff locations and `$ref`s.

/** One reference token: `~` → `~0`, then `/` → `~1` (in that order, so `~1` in a key stays itself). */
export function escapePointerToken(token: string): string {
  if (!token.includes('~') && !token.includes('/')) return token;
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The inverse: `~1` → `/`, then `~0` → `~` (so `~01` is the key `~1`, not `/`). */
export function unescapePointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** RFC 6901 JSON pointer for a path of keys (`''` for the whole document). */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path.map((p) => '/' + escapePointerToken(String(p))).join('');
}

/** The keys a JSON pointer names, or null when it is not one (a non-empty pointer starts with `/`). */
export function pointerTokens(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return null;
  return pointer.slice(1).split('/').map(unescapePointerToken);
}
