/** RFC 6901 JSON pointer for a path of keys. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path.map((p) => '/' + String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
}
