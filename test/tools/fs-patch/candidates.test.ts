// The closest candidates of a missed edit or hunk: the same windows and scores as the plain
// definition (every window scored with lineSimilarity, sorted), each file line prepared once
// (before, every pair of lines built two bigram Maps: a 200-line hunk missing from a 2,000-line
// file held the event loop for 2 s), and a large file narrowed to one wanted line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { closestCandidates, lineSimilarity, CANDIDATE_WORK_CHARS, type Candidate } from '../../../src/tools/fs-patch/text.js';
import { withHarness } from '../fs-write/harness.js';
import { random } from '../../support/random.js';

/** The definition, as fs.patch computed it before: every window, a bigram Map per line pair, one sort. */
function oracle(file: readonly string[], wanted: readonly string[], max: number, narrowed: boolean): Candidate[] {
  let want = wanted;
  let lead = 0;
  if (narrowed) {
    lead = Math.max(0, want.findIndex((l) => l.trim() !== ''));
    want = [want[lead] ?? ''];
  }
  const k = Math.max(1, want.length);
  const scored: { i: number; s: number }[] = [];
  for (let i = 0; i + k <= file.length; i++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += lineSimilarity(file[i + j] as string, want[j] ?? '');
    scored.push({ i, s: s / k });
  }
  scored.sort((a, b) => b.s - a.s || a.i - b.i);
  const span = wanted.length || 1;
  return scored.slice(0, max).filter((c) => c.s > 0).map(({ i, s }) => {
    const start = Math.max(0, i - lead);
    const end = Math.min(file.length, start + span);
    return { start_line: start + 1, end_line: end, similarity: Math.round(s * 100) / 100, text: file.slice(start, end).join('\n').slice(0, 2000) };
  });
}


// Few symbols, so that bigrams repeat and collide; spaces and a no-break space for trim; a
// surrogate pair and code units above 0x7fff, whose bigram keys are negative int32s.
const ALPHABET = ['a', 'b', 'c', ' ', '\t', '\u00a0', '(', ')', 'é', '😀', '\uffff', '\u8000'];

function line(rand: () => number): string {
  const n = Math.floor(rand() * 14);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return s;
}

void describe('closestCandidates', () => {
  void it('finds the windows and scores of the definition, every window and narrowed to one line', () => {
    const rand = random(14);
    for (let round = 0; round < 400; round++) {
      const file = Array.from({ length: Math.floor(rand() * 30) }, () => line(rand));
      // Wanted lines are often file lines, or file lines changed a little.
      const wanted = Array.from({ length: Math.floor(rand() * 5) }, () => (rand() < 0.5 && file.length > 0 ? (file[Math.floor(rand() * file.length)] as string) + (rand() < 0.5 ? 'a' : '') : line(rand)));
      const max = 1 + Math.floor(rand() * 4);
      assert.deepEqual(closestCandidates(file, wanted, max, Infinity), oracle(file, wanted, max, false), `round ${round}: ${JSON.stringify({ file, wanted, max })}`);
      if (wanted.length > 1) assert.deepEqual(closestCandidates(file, wanted, max, 0), oracle(file, wanted, max, true), `round ${round} narrowed: ${JSON.stringify({ file, wanted, max })}`);
    }
  });

  void it('prepares each file line once, not once per pair of lines', () => {
    const file = Array.from({ length: 2_000 }, (_, i) => `  const value${i} = compute(${i}, "item-${i}"); // step ${i}`);
    const wanted = file.slice(500, 700).map((l) => `${l} // changed`);
    const trim = String.prototype.trim;
    let trims = 0;
    String.prototype.trim = function (this: string): string {
      trims++;
      return trim.call(this);
    };
    let found: Candidate[];
    try {
      found = closestCandidates(file, wanted, 3, Infinity);
    } finally {
      String.prototype.trim = trim;
    }
    assert.deepEqual(found.map((c) => c.start_line), [501, 1501, 1]);
    // 2,000 file lines and 200 wanted ones (the definition trims both lines of every pair: 800,000).
    assert.ok(trims <= file.length + wanted.length, `${trims} trims`);
  });

  void it('narrows to one wanted line when every window would compare more characters than the bound', () => {
    const file = Array.from({ length: 30_000 }, (_, i) => `  const value${i} = compute(${i}, "item-${i}"); // step ${i}`);
    const wanted = ['', '  const value7 = compute(7, "item-7"); // step 7 changed', '  return value7;'];
    const chars = file.reduce((n, l) => n + l.length + 1, 0);
    assert.ok(chars * wanted.length > CANDIDATE_WORK_CHARS);
    assert.deepEqual(closestCandidates(file, wanted), oracle(file, wanted, 3, true));
    // Its windows start a line before the line it matched on: the blank wanted line leads.
    assert.equal(closestCandidates(file, wanted)[0]?.start_line, 7);
  });
});

void it('a 200-line hunk missing from a 2,000-line file is no_match with its candidates', () =>
  withHarness(async (h) => {
    const file = Array.from({ length: 2_000 }, (_, i) => `  const value${i} = compute(${i}, "item-${i}"); // step ${i}`);
    writeFileSync(join(h.root, 'big.ts'), `${file.join('\n')}\n`);
    const old = file.slice(500, 700).map((l) => `${l} // changed`);
    const r = await h.call('fs.patch', { files: [{ path: 'big.ts', edits: [{ old: old.join('\n'), new: 'gone' }] }] });
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'no_match');
    const candidates = (r.error?.data as { candidates: Candidate[] }).candidates;
    // 2,000 lines of ~55 characters against 200 wanted ones pass the bound: narrowed to the first.
    assert.deepEqual(candidates.map((c) => [c.start_line, c.end_line]), [[501, 700], [51, 250], [551, 750]]);
  }));
