// The size bound of the text a model reads: every renderer's output passes through here.

/** The longest prefix of `text` that is at most `maxBytes` of UTF-8, never splitting a character. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const buf = Buffer.from(text);
  let end = Math.max(0, maxBytes);
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--; // back off a continuation byte
  return buf.subarray(0, end).toString('utf8');
}

/**
 * `text` cut to `maxBytes` with a closing line that says how much was left out and where the
 * whole result is: the receipt (and structuredContent) keep everything the text leaves out.
 */
export function boundedText(text: string, maxBytes: number, receiptId: string): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= maxBytes) return text;
  const tail = (omitted: number) => `\n[… ${omitted} bytes of this text omitted; the whole result is in structuredContent and receipt ${receiptId}]`;
  const room = Math.max(0, maxBytes - Buffer.byteLength(tail(bytes)));
  const head = utf8Prefix(text, room);
  return head + tail(bytes - Buffer.byteLength(head));
}

/** One line per item, at most `max` of them, then how many more there were. */
export function listLines(items: readonly string[], max: number): string[] {
  const shown = items.slice(0, max);
  return items.length > max ? [...shown, `… and ${items.length - max} more`] : shown;
}
