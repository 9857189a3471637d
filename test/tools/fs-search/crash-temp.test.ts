// Temp files a crash leaves in the workspace (a staged write, a tree moved aside for deletion)
// are Toolgate's, not the user's: fs.search never lists or searches them, in any engine or mode.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, constants, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { harness, makeRepo } from './fixture.js';
import { createFsSearch } from '../../../src/tools/fs-search/tool.js';
import { isCrashTemp } from '../../../src/tools/fs-search/crash-temp.js';
import { stageFile } from '../../../src/resources/index.js';
import type { AnyTool } from '../../../src/registry/index.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

const MARK = 'crash-left-needle';
let root: string;
let staged: string;

before(() => {
  root = makeRepo();
  // A write cut short after staging: the real staging code names the temp file.
  const dirfd = openSync(join(root, 'src'), constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const s = stageFile(dirfd, { data: Buffer.from(`export const x = "${MARK}";\n`), mode: 0o644 });
    closeSync(s.fd);
    staged = `src/${s.tmp}`;
  } finally {
    closeSync(dirfd);
  }
  // A recursive delete cut short after moving the tree aside (fs.delete's trash name).
  mkdirSync(join(root, 'old', 'deep'), { recursive: true });
  writeFileSync(join(root, 'old', 'deep', 'notes.ts'), `// ${MARK}\n`);
  renameSync(join(root, 'old'), join(root, '.tg-0123456789abcdef.del'));
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('fs.search and the temp files a crash leaves behind', () => {
  it('the names staging and deletion use are recognised as temp names', () => {
    assert.equal(isCrashTemp(staged), true, staged);
    assert.equal(isCrashTemp('.tg-0123456789abcdef.del/deep/notes.ts'), true);
    assert.equal(isCrashTemp('src/.tg-notes.md'), false);
    assert.equal(isCrashTemp('src/tg-0123.tmp'), false);
    assert.equal(isCrashTemp('a.tmp'), false);
  });

  for (const engine of ['ripgrep', 'javascript'] as const) {
    it(`${engine}: never searched, never listed, in any mode`, async () => {
      const h = await harness(root, [createFsSearch({ engine }) as unknown as AnyTool]);
      try {
        const calls = [
          { query: MARK, include_ignored: true, include_generated: true },
          { query: MARK, output: 'count_only' },
          { mode: 'regex', query: 'crash-left', output: 'paths_only' },
          { mode: 'filename', query: '.tg-', filename_match: 'substring' },
          { mode: 'filename', query: '*.ts', include_ignored: true },
          { mode: 'symbol', query: 'x' },
          { mode: 'structural', query: 'export const $X = $Y', language: 'typescript' },
        ];
        for (const args of calls) {
          const r = await h.call(args);
          assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
          const res = r.result as FsSearchResult;
          const paths = [...(res.matches ?? []).map((m) => m.path), ...(res.counts ?? []).map((c) => c.path), ...(res.paths ?? [])];
          assert.deepEqual(paths.filter((p) => p.includes('.tg-')), [], JSON.stringify(args));
          assert.equal(JSON.stringify(res).includes(MARK), false, JSON.stringify(args));
        }
      } finally {
        await h.close();
      }
    });
  }
});
