// fs.read's text rendering (src/server/result-text/fs-read.ts) numbers a page that fits whole
// without a byte count per line. Its oracle is the line-by-line loop it kept for pages that do
// not fit (the rendering as it was before): the two must agree on every page, numbered or not,
// around the 6-digit width of `cat -n`, with multi-byte text, truncated or at the end of a file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fsReadText } from '../../src/server/result-text/fs-read.js';
import { utf8Prefix } from '../../src/server/result-text/bounded.js';
import { random } from '../support/random.js';

type Data = Readonly<Record<string, unknown>>;

/** The rendering before this change, line by line (the test's oracle). */
function oracle(r: Data, args: Data, maxBytes: number): string {
  const path = String(r['path']);
  const total = Number(r['total_lines']);
  const start = Number(r['start_line']);
  const end = Number(r['end_line']);
  const content = typeof r['content'] === 'string' ? r['content'] : '';
  const numbered = args['line_numbers'] !== false;
  const header = `fs.read ${path}: lines ${start}-${end} of ${total}${numbered ? ' (cat -n: number, tab, line; the numbers are not part of the file)' : ''}:`;
  const continuation = typeof r['continuation'] === 'string' ? r['continuation'] : null;
  const moreLines = (next: number) =>
    `[truncated: showing lines ${start}-${next - 1} of ${total}. To read on, call fs_read with {"path":${JSON.stringify(path)},"start_line":${next}}${
      continuation !== null && next === end + 1 ? ` or with "continuation":${JSON.stringify(continuation)}` : ''
    }]`;
  const room = maxBytes - Buffer.byteLength(header) - 600 - (continuation?.length ?? 0);
  const lines = content.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const body: string[] = [];
  let used = 0;
  let shown = 0;
  for (const [i, line] of lines.entries()) {
    const text = numbered ? `${String(start + i).padStart(6)}\t${line}` : line;
    const bytes = Buffer.byteLength(text) + 1;
    if (used + bytes > room) {
      if (shown === 0) body.push(utf8Prefix(text, room));
      break;
    }
    body.push(text);
    used += bytes;
    shown++;
  }
  const parts = [header, ...body];
  if (shown < end - start + 1) parts.push(moreLines(start + Math.max(shown, 1)));
  else if (r['truncated'] === true && !content.endsWith('\n') && continuation !== null) {
    parts.push(`[truncated inside line ${end} of ${total}. To read on, call fs_read with {"path":${JSON.stringify(path)},"continuation":${JSON.stringify(continuation)}}]`);
  } else if (r['truncated'] === true) parts.push(moreLines(end + 1));
  else if (start > 1 || end < total) parts.push(`[end of file: ${total} lines]`);
  return parts.join('\n');
}

const WORDS = ['a', 'line', 'é', '€uro', '😀', '', ' ', 'x'.repeat(40)];

test('a page that fits is numbered in place exactly as line by line, and one that does not is cut as before (3,000 random pages)', () => {
  const next = random(61206);
  let fitted = 0;
  let cut = 0;
  for (let round = 0; round < 3_000; round++) {
    const n = 1 + Math.floor(next() * 60);
    const lines = Array.from({ length: n }, () => Array.from({ length: Math.floor(next() * 5) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '));
    const endsWithNewline = next() < 0.7;
    // (An empty page is the past-the-end message, rendered before either path.)
    const content = lines.join('\n') + (endsWithNewline ? '\n' : '') || 'x';
    // Starts near the 6-digit width: 999,990 + n crosses it.
    const start = next() < 0.3 ? 999_990 - Math.floor(next() * 20) : 1 + Math.floor(next() * 500);
    const end = start + n - 1;
    const truncated = next() < 0.4;
    const total = truncated ? end + 10 : end + (next() < 0.5 ? 0 : 3);
    const r = { path: 'src/a b.ts', total_lines: total, size: 1_000, start_line: start, end_line: end, content, sha256: 'x', truncated, continuation: truncated && next() < 0.6 ? 'tok' : null };
    const args = next() < 0.2 ? { line_numbers: false } : {};
    const maxBytes = next() < 0.5 ? 1_000_000 : 700 + Math.floor(next() * 2_000);
    const got = fsReadText(r, args, maxBytes);
    assert.equal(got, oracle(r, args, maxBytes), `round ${round}`);
    if (got.includes('[truncated: showing lines') && !truncated) cut++;
    else fitted++;
  }
  assert.ok(fitted > 1_000 && cut > 100, `pages that fitted ${fitted}, cut ${cut}`);
});
