import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { diffHunks, formatDiff } from '../../../src/tools/fs-patch/diff.js';
import { applyHunks } from '../../../src/tools/fs-patch/hunks.js';
import { parseUnifiedDiff } from '../../../src/tools/fs-patch/parse.js';
import { fromLines, toLines } from '../../../src/tools/fs-patch/text.js';

const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd', '', '  x', 'y\r'), { maxLength: 40 }).chain((lines) =>
  fc.boolean().map((eol) => (lines.length ? lines.join('\n') + (eol ? '\n' : '') : '')),
);

void test('the diff of any two texts, printed and parsed back, turns the first into the second', () => {
  fc.assert(
    fc.property(text, text, (a, b) => {
      const before = toLines(a);
      const after = toLines(b);
      const hunks = diffHunks(before, after);
      if (a === b) return hunks.length === 0;
      if (a === '' || b === '') return true; // creations and deletions are whole-file, covered elsewhere
      const printed = formatDiff([{ path: 'f', status: 'modified', oldMode: 0o644, newMode: 0o644, hunks }]);
      const [patch] = parseUnifiedDiff(printed);
      assert.ok(patch);
      assert.equal(fromLines(applyHunks('f', before, patch.hunks).after), b);
      return true;
    }),
    { numRuns: 400 },
  );
});

void test('git apply accepts the diffs fs.patch prints', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-diff-'));
  try {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    fc.assert(
      fc.property(text, text, (a, b) => {
        if (a === b || a === '' || b === '') return true;
        writeFileSync(join(dir, 'f'), a);
        const hunks = diffHunks(toLines(a), toLines(b));
        writeFileSync(join(dir, 'p.diff'), formatDiff([{ path: 'f', status: 'modified', oldMode: 0o644, newMode: 0o644, hunks }]));
        execFileSync('git', ['apply', '--unsafe-paths', 'p.diff'], { cwd: dir });
        assert.equal(execFileSync('cat', [join(dir, 'f')], { encoding: 'utf8' }), b);
        return true;
      }),
      { numRuns: 60 },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
