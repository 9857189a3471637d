// Line counts of a captured stream: `lines` is the stream's, and `omitted_lines` the lines the
// preview leaves out whole (a line cut by the head/tail boundary is shown in part, not omitted).
// The oracle walks the whole text line by line with the head and tail byte lengths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { StreamCapture } from '../../src/sandbox/stream-capture.js';

function capture(text: string, cuts: number[], head: number, tail: number): ReturnType<StreamCapture['finish']> {
  const c = new StreamCapture({ name: 'stdout', headBytes: head, tailBytes: tail, capBytes: 1 << 30, secrets: [], openArtifact: null });
  const data = Buffer.from(text);
  let from = 0;
  for (const p of [...new Set(cuts.map((x) => x % (data.length + 1)))].sort((a, b) => a - b)) {
    c.push(data.subarray(from, p));
    from = p;
  }
  c.push(data.subarray(from));
  return c.finish();
}

/** Each line as [first byte, end] (end past its newline, or the end of the text). */
function lineRanges(data: Buffer): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < data.length; i++) {
    if (data[i] === 0x0a) {
      out.push([start, i + 1]);
      start = i + 1;
    }
  }
  if (start < data.length) out.push([start, data.length]);
  return out;
}

test('lines and omitted_lines agree with a line-by-line oracle, wherever the stream is cut', () => {
  const piece = fc.constantFrom('a', 'bc', '\n', '\n\n', 'line\n', 'é', '€\n', 'x'.repeat(40));
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 80 }), fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 1, max: 24 }), fc.integer({ min: 1, max: 24 }), (pieces, cuts, head, tail) => {
      const text = pieces.join('');
      const data = Buffer.from(text);
      const s = capture(text, cuts, head, tail);
      const ranges = lineRanges(data);
      assert.equal(s.lines, ranges.length);
      if (s.omitted_bytes === 0) return assert.equal(s.omitted_lines, 0);
      // The preview's head and tail are the bytes around the omitted middle.
      const [shownHead] = s.preview.split(/\n\[… \d+ bytes omitted …\]\n/);
      const headLen = Buffer.byteLength(shownHead ?? '');
      const tailStart = headLen + s.omitted_bytes;
      const whole = ranges.filter(([a, b]) => a >= headLen && b <= tailStart).length;
      assert.equal(s.omitted_lines, whole, JSON.stringify({ text, head, tail, preview: s.preview }));
    }),
    { numRuns: 400 },
  );
});

test('10,000 numbered lines with 8 KiB head and tail: the counts a model reads', () => {
  const text = Array.from({ length: 10_000 }, (_, i) => `line ${i + 1}\n`).join('');
  const s = capture(text, [4096, 65536], 8192, 8192);
  assert.equal(s.lines, 10_000);
  // The preview's lines less the marker's own: the lines shown whole or in part (the head ends
  // inside a line, the tail ends with the stream's last newline).
  const shownLines = s.preview.split('\n').length - 2;
  assert.equal(s.omitted_lines + shownLines, 10_000);
  assert.ok(s.omitted_lines > 8_000 && s.omitted_lines < 9_000, String(s.omitted_lines));
  assert.equal(s.bytes, Buffer.byteLength(text));
});

test('a last line without a newline is a line; no output is no line; one long line is never omitted', () => {
  assert.deepEqual([capture('a\nb', [], 8, 8).lines, capture('', [], 8, 8).lines, capture('a\n', [], 8, 8).lines], [2, 0, 1]);
  const long = capture('y'.repeat(1000), [100, 500], 16, 16);
  assert.deepEqual([long.lines, long.omitted_lines, long.omitted_bytes], [1, 0, 1000 - 32]);
});
