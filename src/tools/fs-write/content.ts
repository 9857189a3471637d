import { usesCrlf } from '../../resources/index.js';

// Line endings are converted on the bytes, one pass each way. A CR or an LF byte is never part
// of a longer UTF-8 sequence, so this is the conversion of the decoded text, without decoding it.
// The text's `replace(/\r\n/g, '\n')` held the event loop 216 ms for a 7.5 MB file of short
// lines (fs.write accepts 8 MiB); these loops take ~10 and ~20 ms. The string form is kept as the
// tests' oracle (test/tools/fs-write/newlines.test.ts).

/** Every CRLF as LF; a lone CR stays. */
export function crlfToLf(src: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(src.length);
  const n = src.length;
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = src[i] as number;
    if (c === 13 && i + 1 < n && src[i + 1] === 10) continue;
    out[o++] = c;
  }
  return out.subarray(0, o);
}

/** Every line ending as CRLF: an LF gains the CR it lacks; a CRLF and a lone CR stay. */
export function lfToCrlf(src: Uint8Array): Buffer {
  let bare = 0;
  for (let i = 0; i < src.length; i++) if (src[i] === 10 && (i === 0 || src[i - 1] !== 13)) bare++;
  if (bare === 0) return Buffer.from(src);
  const out = Buffer.allocUnsafe(src.length + bare);
  let o = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i] as number;
    if (c === 10 && (i === 0 || src[i - 1] !== 13)) out[o++] = 13;
    out[o++] = c;
  }
  return out;
}

/**
 * `lf` and `crlf` convert every line ending; `preserve` keeps the content as given, except that
 * LF endings become CRLF when the file being replaced uses CRLF (so an edit does not flip them).
 * `bytes` is UTF-8 (the utf-8 encoding's content).
 */
export function applyNewlines(bytes: Buffer, newline: 'preserve' | 'lf' | 'crlf', existing: Uint8Array | null): Buffer {
  const want = newline === 'preserve' ? (existing && usesCrlf(existing) ? 'crlf' : null) : newline;
  if (want === null) return bytes;
  return want === 'lf' ? crlfToLf(bytes) : lfToCrlf(bytes);
}

/** Sets or clears the execute bits wherever the read bits are set; `undefined` keeps the mode. */
export function withExecutable(mode: number, executable: boolean | undefined): number {
  if (executable === undefined) return mode;
  return executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
}
