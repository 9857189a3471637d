// Planning an edit of a large file lets the event loop run between its passes over the text
// (decode, split, edit, encode, split, compare, diff): one edit in a 4 MB file held it 73-172 ms
// in one go (bench/holds). The turns are counted, not timed: the same input takes as many on a
// fast machine as on a slow one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openWriteTarget, resolveWriteTarget, Workspace } from '../../../src/resources/index.js';
import { PACE_TEXT_BYTES, plan, type Change } from '../../../src/tools/fs-patch/plan.js';
import { parseUnifiedDiff } from '../../../src/tools/fs-patch/parse.js';
import { tempDirs } from '../../support/fixtures.js';

/** A turn between each two passes over the text. */
const MIN_TURNS: Record<string, number> = { edits: 6, diff: 3, delete: 1, create: 2 };

const lines = (n: number): string => Array.from({ length: n }, (_, i) => `${i},name${i},token_${i}`).join('\n') + '\n';

void test('an edit, a diff, a delete and a whole new content of a large file take turns; of a small one, none; the plans are the same', async () => {
  const d = tempDirs('tg-plan-turns');
  const ws = Workspace.open(d.workspace);
  try {
    const big = lines(Math.ceil(PACE_TEXT_BYTES / 20) + 1000);
    assert.ok(Buffer.byteLength(big) >= PACE_TEXT_BYTES);
    const small = lines(50);
    const changes = (text: string): Change[] => [
      { kind: 'edits', edits: [{ old: '40,name40,', new: 'X,' }], expected_sha256: undefined },
      { kind: 'diff', patch: parseUnifiedDiff('--- a/f.csv\n+++ b/f.csv\n@@ -41,1 +41,1 @@\n-40,name40,token_40\n+X\n')[0]! },
      { kind: 'delete', expected_sha256: undefined },
      { kind: 'create', content: text.replace('40,name40,', 'Y,'), overwrite: 'any', expected_sha256: undefined },
    ];
    for (const [text, expectTurns] of [[big, true], [small, false]] as const) {
      writeFileSync(join(d.workspace, 'f.csv'), text);
      for (const change of changes(text)) {
        const target = resolveWriteTarget(ws, 'f.csv', { createParents: false });
        const opened = openWriteTarget(ws, target, { createParents: false, maxBytes: 1 << 30 });
        try {
          let turns = 0;
          const counted = await plan({ target, change }, opened, undefined, async () => void turns++);
          const plain = await plan({ target, change }, opened, undefined, async () => undefined);
          assert.deepEqual(counted, plain, `${change.kind}: the same plan with and without turns`);
          if (expectTurns) assert.ok(turns >= (MIN_TURNS[change.kind] ?? 1), `${change.kind} of ${text.length} bytes: ${turns} turns`);
          else assert.equal(turns, 0, `${change.kind} of a small file: no turn`);
        } finally {
          opened.close();
        }
      }
    }
  } finally {
    ws.close();
    d.cleanup();
  }
});
