// Line-ending detection, shared by every tool that rewrites a text file so that an edit keeps
// the file's CRLF endings rather than flipping them.

/** True when most line endings of `data` are CRLF. */
export function usesCrlf(data: Uint8Array): boolean {
  // Each newline found with indexOf (a byte loop over a 4 MB file took ~15 ms of the event loop).
  const b = Buffer.from(data.buffer, data.byteOffset, data.length);
  let lf = 0;
  let crlf = 0;
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) {
    if (i > 0 && b[i - 1] === 13) crlf++;
    else lf++;
  }
  return crlf > lf;
}
