// fs.read as text: the page `cat -n` style (6-wide right-aligned number, a tab, the line, as the
// Anthropic/OpenHands editors render it) unless the call set line_numbers: false; then where the
// page sits in the file and how to continue, or that the start is past the end.
import { utf8Prefix } from './bounded.js';

type Data = Readonly<Record<string, unknown>>;

export function isFsReadResult(result: unknown): result is Data {
  return typeof result === 'object' && result !== null && 'content' in result && 'total_lines' in result && 'sha256' in result;
}

/** The lines of a page (a final newline ends the last line, it does not start another). */
function pageLines(content: string): string[] {
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * The text of one fs.read page within `maxBytes`. When the numbered page is larger (a caller
 * asked for a big max_bytes), the text shows the lines that fit and says where to go on.
 */
export function fsReadText(r: Data, args: Data, maxBytes: number): string {
  const path = String(r['path']);
  const total = Number(r['total_lines']);
  const size = Number(r['size']);
  const start = Number(r['start_line']);
  const end = Number(r['end_line']);
  if (r['binary'] === true) return `fs.read ${path}: a binary file of ${size} bytes (sha256 ${String(r['sha256'])}); no text content is shown.`;
  const content = typeof r['content'] === 'string' ? r['content'] : '';
  if (size === 0) return `fs.read ${path}: the file exists but is empty (0 bytes).`;
  if (content === '') {
    return `fs.read ${path}: start_line ${start} is past the end of the file, which has ${total} lines (${size} bytes); nothing was read. Read from start_line 1 to ${total}.`;
  }
  const numbered = args['line_numbers'] !== false;
  const header = `fs.read ${path}: lines ${start}-${end} of ${total}${numbered ? ' (cat -n: number, tab, line; the numbers are not part of the file)' : ''}:`;
  const continuation = typeof r['continuation'] === 'string' ? r['continuation'] : null;
  const moreLines = (next: number) =>
    `[truncated: showing lines ${start}-${next - 1} of ${total}. To read on, call fs_read with {"path":${JSON.stringify(path)},"start_line":${next}}${
      continuation !== null && next === end + 1 ? ` or with "continuation":${JSON.stringify(continuation)}` : ''
    }]`;
  // Reserve room for the closing note; then add whole lines while they fit.
  const room = maxBytes - Buffer.byteLength(header) - 600 - (continuation?.length ?? 0);
  const lines = pageLines(content);
  // Every line fits when even the widest numbering of all of them does (a line's bytes are at
  // most the page's; each line adds its number, a tab and a newline): the lines are numbered in
  // place, without a byte count each (4 MB of short lines: 32–39 → 25 ms; a 4 KiB page 8 → 4 µs).
  const width = Math.max(6, String(start + lines.length - 1).length);
  if (Buffer.byteLength(content) + lines.length * (width + 2) <= room) {
    if (numbered) for (let i = 0; i < lines.length; i++) lines[i] = `${String(start + i).padStart(6)}\t${lines[i] as string}`;
    return [header, lines.join('\n'), ...closing(lines.length)].join('\n');
  }
  const body: string[] = [];
  let used = 0;
  let shown = 0;
  for (const [i, line] of lines.entries()) {
    const text = numbered ? `${String(start + i).padStart(6)}\t${line}` : line;
    const bytes = Buffer.byteLength(text) + 1;
    if (used + bytes > room) {
      if (shown === 0) body.push(utf8Prefix(text, room)); // one line wider than the room: its head
      break;
    }
    body.push(text);
    used += bytes;
    shown++;
  }
  return [header, ...body, ...closing(shown)].join('\n');

  /** The note after `shown` lines: where to go on, or where the page sits in the file. */
  function closing(shown: number): string[] {
    if (shown < end - start + 1) return [moreLines(start + Math.max(shown, 1))];
    // The page ends inside a line: only the continuation resumes there.
    if (r['truncated'] === true && !content.endsWith('\n') && continuation !== null) {
      return [`[truncated inside line ${end} of ${total}. To read on, call fs_read with {"path":${JSON.stringify(path)},"continuation":${JSON.stringify(continuation)}}]`];
    }
    if (r['truncated'] === true) return [moreLines(end + 1)];
    if (start > 1 || end < total) return [`[end of file: ${total} lines]`];
    return [];
  }
}
