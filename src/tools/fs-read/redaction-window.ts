import { MAX_TOKEN_CHARS } from '../../redact/index.js';
import type { RedactionWindow } from '../../registry/index.js';

/** How far back a page looks for the BEGIN line of a private key it starts inside. */
export const KEY_LOOKBACK_BYTES = 64 * 1024;

const BEGIN_KEY = /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g;
const END_KEY = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/;

/**
 * The bytes around one page of a file, for the redact stage: a token that straddles the
 * page's edge is found whole, and a page that begins inside a private key's body (its BEGIN
 * line on an earlier page, up to KEY_LOOKBACK_BYTES back) is redacted as the key it is.
 */
export async function pageWindow(read: (offset: number, length: number) => Promise<Buffer>, offset: number, length: number, size: number): Promise<RedactionWindow> {
  let before = '';
  if (offset > 0) {
    const from = Math.max(0, offset - KEY_LOOKBACK_BYTES);
    const back = (await read(from, offset - from)).toString('latin1');
    let start = Math.max(0, back.length - MAX_TOKEN_CHARS);
    const open = openKeyBefore(back);
    if (open !== -1) start = Math.min(start, open);
    before = Buffer.from(back.slice(start), 'latin1').toString('utf8');
  }
  const end = offset + length;
  const after = end < size ? (await read(end, Math.min(MAX_TOKEN_CHARS, size - end))).toString('utf8') : '';
  return { pointer: '/result/content', before, after };
}

/** Offset of the last private key BEGIN line with no END line after it, or -1. */
function openKeyBefore(text: string): number {
  let open = -1;
  BEGIN_KEY.lastIndex = 0;
  for (let m = BEGIN_KEY.exec(text); m !== null; m = BEGIN_KEY.exec(text)) {
    if (!END_KEY.test(text.slice(m.index + m[0].length))) open = m.index;
  }
  return open;
}
