// The result diff of fs.patch leaves out the lines both texts start and end with but for the
// context around the changes (src/tools/fs-patch/diff.ts): one edit in a file of 200,000 lines
// made an op for every line, ~70 ms of a held event loop for a 4 MB file. The hunks must be
// the same as before: the whole-file version below, as it was, is the oracle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { diffHunks, MAX_EDIT_STEPS } from '../../../src/tools/fs-patch/diff.js';
import type { Hunk, HunkLine } from '../../../src/tools/fs-patch/parse.js';
import { toLines, type Lines } from '../../../src/tools/fs-patch/text.js';

const CONTEXT = 3;

/** Myers' O(ND) shortest edit script over lines, as a list of ops in order. */
function wholeEditScript(a: readonly string[], b: readonly string[]): HunkLine[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  const N = A.length;
  const M = B.length;
  const max = N + M;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let done = max === 0;
  for (let d = 0; d <= max && !done; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && (v[max + k - 1] as number) < (v[max + k + 1] as number)) ? (v[max + k + 1] as number) : (v[max + k - 1] as number) + 1;
      let y = x - k;
      while (x < N && y < M && A[x] === B[y]) {
        x++;
        y++;
      }
      v[max + k] = x;
      if (x >= N && y >= M) {
        done = true;
        break;
      }
    }
  }
  const mid: HunkLine[] = [];
  let x = N;
  let y = M;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d] as Int32Array;
    const k = x - y;
    const prevK = k === -d || (k !== d && (vd[max + k - 1] as number) < (vd[max + k + 1] as number)) ? k + 1 : k - 1;
    const px = vd[max + prevK] as number;
    const py = px - prevK;
    while (x > px && y > py) {
      x--;
      y--;
      mid.push({ op: ' ', text: A[x] as string });
    }
    if (d === 0) break;
    if (x === px) mid.push({ op: '+', text: B[--y] as string });
    else mid.push({ op: '-', text: A[--x] as string });
  }
  mid.reverse();
  return [...a.slice(0, pre).map((text) => ({ op: ' ' as const, text })), ...mid, ...a.slice(a.length - suf).map((text) => ({ op: ' ' as const, text }))];
}

/** Marks a last line without '\n' so that it differs from the same text with one (text never holds NUL). */
const NOEOL = '\u0000';
function marked(l: Lines): string[] {
  if (l.eofNewline || l.lines.length === 0) return l.lines;
  return [...l.lines.slice(0, -1), `${l.lines[l.lines.length - 1] as string}${NOEOL}`];
}

/** Groups an edit script into hunks with CONTEXT lines around each change. */
function wholeDiffHunks(before: Lines, after: Lines): Hunk[] {
  const script = wholeEditScript(marked(before), marked(after));
  const hunks: Hunk[] = [];
  let i = 0;
  let oldNo = 1;
  let newNo = 1;
  const oldAt: number[] = [];
  const newAt: number[] = [];
  for (const l of script) {
    oldAt.push(oldNo);
    newAt.push(newNo);
    if (l.op !== '+') oldNo++;
    if (l.op !== '-') newNo++;
  }
  while (i < script.length) {
    if ((script[i] as HunkLine).op === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - CONTEXT);
    let end = i;
    let lastChange = i;
    while (end < script.length) {
      if ((script[end] as HunkLine).op !== ' ') lastChange = end;
      else if (end - lastChange > 2 * CONTEXT) break;
      end++;
    }
    end = Math.min(script.length, lastChange + CONTEXT + 1);
    const raw = script.slice(start, end);
    const lines = raw.map((l) => (l.text.endsWith(NOEOL) ? { op: l.op, text: l.text.slice(0, -1) } : l));
    const oldLines = lines.filter((l) => l.op !== '+').length;
    const newLines = lines.filter((l) => l.op !== '-').length;
    const oldStart = oldLines === 0 ? (oldAt[start] as number) - 1 : (oldAt[start] as number);
    const newStart = newLines === 0 ? (newAt[start] as number) - 1 : (newAt[start] as number);
    hunks.push({
      oldStart,
      oldLines,
      newStart,
      newLines,
      section: '',
      lines,
      oldNoNewline: raw.some((l) => l.op !== '+' && l.text.endsWith(NOEOL)),
      newNoNewline: raw.some((l) => l.op !== '-' && l.text.endsWith(NOEOL)),
    });
    i = end;
  }
  return hunks;
}

const line = fc.constantFrom('a', 'b', 'c', '', '  x', 'y\r', 'é');
/** A long run of lines both texts share, then a few changed ones, then another shared run. */
const texts = fc
  .tuple(fc.array(line, { maxLength: 60 }), fc.array(line, { maxLength: 8 }), fc.array(line, { maxLength: 8 }), fc.array(line, { maxLength: 60 }), fc.boolean(), fc.boolean())
  .map(([head, from, to, tail, eolA, eolB]) => {
    const join = (ls: string[], eol: boolean): string => (ls.length ? ls.join('\n') + (eol ? '\n' : '') : '');
    return [join([...head, ...from, ...tail], eolA), join([...head, ...to, ...tail], eolB)] as const;
  });

void test('the hunks of a diff that leaves out the shared start and end are the hunks of the whole-file diff', () => {
  fc.assert(
    fc.property(texts, ([a, b]) => {
      assert.deepEqual(diffHunks(toLines(a), toLines(b)), wholeDiffHunks(toLines(a), toLines(b)));
    }),
    { numRuns: 2000 },
  );
  // One edit in the middle of 200,000 lines: the same single hunk, its line numbers from the file's start.
  const big = Array.from({ length: 200_000 }, (_, i) => `${i},name${i}`);
  const after = [...big];
  after[150_000] = 'X';
  const hunks = diffHunks({ lines: big, eofNewline: true }, { lines: after, eofNewline: true });
  assert.deepEqual(hunks, wholeDiffHunks({ lines: big, eofNewline: true }, { lines: after, eofNewline: true }));
  assert.equal(hunks.length, 1);
  assert.equal(hunks[0]?.oldStart, 149_998);
});

/** The old and new sides of the hunks, checked against the texts at the hunks' line numbers. */
function checkSides(hunks: readonly Hunk[], before: readonly string[], after: readonly string[]): void {
  for (const h of hunks) {
    assert.deepEqual(h.lines.filter((l) => l.op !== '+').map((l) => l.text), before.slice(h.oldStart - 1, h.oldStart - 1 + h.oldLines));
    assert.deepEqual(h.lines.filter((l) => l.op !== '-').map((l) => l.text), after.slice(h.newStart - 1, h.newStart - 1 + h.newLines));
  }
}

void test(`a change of up to ${MAX_EDIT_STEPS} steps gets the shortest diff; a larger one, its middle removed and added; deleting a large file is one hunk of removals`, () => {
  // Every other line changed: the shortest script takes two steps a changed line and keeps the others as context.
  const rewrite = (n: number): [string[], string[]] => {
    const a = Array.from({ length: n }, (_, i) => `line ${i}`);
    return [a, a.map((l, i) => (i % 2 === 1 ? `${l} changed` : l))];
  };
  const [a1, b1] = rewrite(MAX_EDIT_STEPS - 2);
  const within = diffHunks({ lines: a1, eofNewline: true }, { lines: b1, eofNewline: true });
  assert.deepEqual(within, wholeDiffHunks({ lines: a1, eofNewline: true }, { lines: b1, eofNewline: true }), 'the shortest diff up to the bound');
  assert.ok(within.some((h) => h.lines.some((l, i) => l.op === ' ' && i > 3 && i < h.lines.length - 4)), 'unchanged lines kept inside the hunk');

  const [a2, b2] = rewrite(MAX_EDIT_STEPS + 200);
  const past = diffHunks({ lines: a2, eofNewline: true }, { lines: b2, eofNewline: true });
  checkSides(past, a2, b2);
  assert.equal(past.length, 1);
  const ops = (past[0] as Hunk).lines.map((l) => l.op).join('');
  assert.match(ops, /^ *-+\++ *$/, 'the changed middle removed, then added');

  // Deleting a file of 53,000 lines (the search took 14-48 s and 22 GB of allocations).
  const big = Array.from({ length: 53_000 }, (_, i) => `${i},name${i},token_${i}`);
  const gone = diffHunks({ lines: big, eofNewline: true }, { lines: [], eofNewline: true });
  assert.equal(gone.length, 1);
  assert.equal(gone[0]?.oldLines, 53_000);
  assert.ok(gone[0]?.lines.every((l) => l.op === '-'));
  checkSides(gone, big, []);
});
