import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { write } from './fixture.js';
import { Workspace } from '../../../src/resources/index.js';
import { FileReader } from '../../../src/tools/fs-search/file-access.js';
import { RipgrepEngine } from '../../../src/tools/fs-search/engines/ripgrep.js';
import { JavaScriptEngine } from '../../../src/tools/fs-search/engines/javascript.js';

describe('ripgrep engine stopping early', () => {
  let root: string;
  const files = Array.from({ length: 300 }, (_, i) => `d/f${String(i).padStart(3, '0')}.txt`);
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'fs-search-rg-'));
    for (const f of files) write(root, f, 'hit\nmiss\nhit hit\n');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('stops at a file boundary once it has enough, and answers only for files it finished', async () => {
    const ws = Workspace.open(root);
    const reader = new FileReader(ws);
    try {
      const q = { kind: 'literal', pattern: 'hit', caseSensitive: true, want: 'lines' } as const;
      const all = await new RipgrepEngine('rg', ws.root).search(files, q, reader, new AbortController().signal);
      assert.equal(all.searched, 300);
      assert.equal(all.found.length, 300);
      for (const parallelism of [1, 2, 3]) {
        const rg = new RipgrepEngine('rg', ws.root, parallelism);
        const some = await rg.search(files, q, reader, new AbortController().signal, 7);
        // 3 matches a file: the 7th is in the third file, so the answer ends with it.
        assert.equal(some.searched, 3, `parallelism ${parallelism}`);
        assert.deepEqual(some.found, all.found.slice(0, 3));
        // Past the first part: the answer may run further, but always to a file boundary and
        // with every file before it complete.
        const more = await rg.search(files, q, reader, new AbortController().signal, 3 * 200 + 1);
        assert.ok(more.searched >= 201, `parallelism ${parallelism}`);
        if (parallelism === 1) assert.equal(more.searched, 201);
        assert.deepEqual(more.found, all.found.slice(0, more.searched));
      }
      // The JavaScript engine finds the same, searching everything.
      const js = new JavaScriptEngine();
      try {
        const same = await js.search(files, q, reader, new AbortController().signal, 7);
        assert.equal(same.searched, 300);
        assert.deepEqual(same.found, all.found);
      } finally {
        await js.close();
      }
    } finally {
      reader.close();
      ws.close();
    }
  });
});
