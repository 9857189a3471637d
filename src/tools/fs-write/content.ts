import { usesCrlf } from '../../resources/index.js';

function toLf(text: string): string {
  return text.replace(/\r\n/g, '\n');
}

/**
 * `lf` and `crlf` convert every line ending; `preserve` keeps the content as given, except that
 * LF endings become CRLF when the file being replaced uses CRLF (so an edit does not flip them).
 */
export function applyNewlines(bytes: Buffer, newline: 'preserve' | 'lf' | 'crlf', existing: Uint8Array | null): Buffer {
  const want = newline === 'preserve' ? (existing && usesCrlf(existing) ? 'crlf' : null) : newline;
  if (want === null) return bytes;
  const lf = toLf(bytes.toString('utf8'));
  return Buffer.from(want === 'lf' ? lf : lf.replace(/\n/g, '\r\n'), 'utf8');
}

/** Sets or clears the execute bits wherever the read bits are set; `undefined` keeps the mode. */
export function withExecutable(mode: number, executable: boolean | undefined): number {
  if (executable === undefined) return mode;
  return executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
}
