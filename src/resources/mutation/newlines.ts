// Line-ending detection, shared by every tool that rewrites a text file so that an edit keeps
// the file's CRLF endings rather than flipping them.

/** True when most line endings of `data` are CRLF. */
export function usesCrlf(data: Uint8Array): boolean {
  let lf = 0;
  let crlf = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] !== 10) continue;
    if (i > 0 && data[i - 1] === 13) crlf++;
    else lf++;
  }
  return crlf > lf;
}
