import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { write } from './fixture.js';
import { Workspace } from '../../../src/resources/index.js';
import { FileReader } from '../../../src/tools/fs-search/file-access.js';
import { RipgrepEngine } from '../../../src/tools/fs-search/engines/ripgrep.js';
import { JavaScriptEngine } from '../../../src/tools/fs-search/engines/javascript.js';
import { alive } from '../../support/processes.js';

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
      const whole = new RipgrepEngine('rg', ws.root);
      const all = await whole.search(files, q, reader, new AbortController().signal);
      await whole.close();
      assert.equal(all.searched, 300);
      assert.equal(all.found.length, 300);
      for (const parallelism of [1, 2, 3]) {
        // Always ripgrep here (a case-sensitive literal's first page is otherwise scanned in process).
        const rg = new RipgrepEngine('rg', ws.root, parallelism, undefined, false);
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
        await rg.close();
      }
      // Scanned in process (literal-scan.ts): the same answers, cut at the same file boundary.
      const here = new RipgrepEngine('rg', ws.root);
      assert.deepEqual(await here.search(files, q, reader, new AbortController().signal, 7), { found: all.found.slice(0, 3), searched: 3 });
      assert.deepEqual(await here.search(files, q, reader, new AbortController().signal, 3 * 200 + 1), { found: all.found.slice(0, 201), searched: 201 });
      assert.deepEqual(await here.search(files, q, reader, new AbortController().signal, 10_000), all);
      await here.close();
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

describe('ripgrep engine parts and processes', () => {
  let root: string;
  let bin: string;
  const files = Array.from({ length: 600 }, (_, i) => `d/f${String(i).padStart(3, '0')}.txt`);
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'fs-search-rg-parts-'));
    bin = mkdtempSync(join(tmpdir(), 'fs-search-rg-bin-'));
    // Every file holds `hit` three times; only the last one holds `rare`.
    for (const f of files) write(root, f, f === files[files.length - 1] ? 'hit hit hit rare\n' : 'hit\nhit hit\n');
    // A ripgrep that logs its pid (it execs, so the pid is ripgrep's) and runs the real one.
    writeFileSync(join(bin, 'rg'), `#!/bin/sh\necho $$ >> ${join(bin, 'pids')}\nexec rg "$@"\n`);
    chmodSync(join(bin, 'rg'), 0o755);
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  });
  const pids = (): number[] => {
    try {
      return readFileSync(join(bin, 'pids'), 'utf8').trim().split('\n').map(Number);
    } catch {
      return [];
    }
  };
  it('runs one process per stripe, all at once, with the same answers as one run, and close() leaves no process', async () => {
    const ws = Workspace.open(root);
    const reader = new FileReader(ws);
    try {
      const common = { kind: 'literal', pattern: 'hit', caseSensitive: true, want: 'lines' } as const;
      const rare = { kind: 'literal', pattern: 'rare', caseSensitive: true, want: 'lines' } as const;
      const one = new RipgrepEngine('rg', ws.root, 1);
      const whole = await one.search(files, common, reader, new AbortController().signal);
      await one.close();
      const rg = new RipgrepEngine(join(bin, 'rg'), ws.root, 2, undefined, false);
      try {
        // A page in the first files: both stripes run (files 0, 2, 4, … and 1, 3, 5, …), and the
        // answer is the prefix both finished, cut where the 7th match is (the third file).
        const page = await rg.search(files, common, reader, new AbortController().signal, 7);
        assert.equal(pids().length, 2, 'one process per stripe');
        assert.equal(page.searched, 3);
        assert.deepEqual(page.found, whole.found.slice(0, 3));
        // A page deep in the batch: every file before the cut complete, none after it.
        const deep = await rg.search(files, common, reader, new AbortController().signal, 3 * 450 + 1);
        assert.equal(deep.searched, 451);
        assert.deepEqual(deep.found, whole.found.slice(0, 451));
        // A page the batch cannot fill: everything searched, the one match found.
        const some = await rg.search(files, rare, reader, new AbortController().signal, 7);
        assert.equal(pids().length, 6);
        assert.equal(some.searched, files.length);
        assert.deepEqual(some.found.map((f) => f.path), [files[files.length - 1]]);
      } finally {
        await rg.close();
      }
      // Every child stopped early was reaped by close().
      for (const pid of pids()) assert.equal(alive(pid), false, `ripgrep ${pid} still exists after close()`);
    } finally {
      reader.close();
      ws.close();
    }
  });

  it('starts no ripgrep for a case-sensitive literal page (scanned in process), nor for a run whose files are all gone', async () => {
    const ws = Workspace.open(root);
    const reader = new FileReader(ws);
    try {
      const common = { kind: 'literal', pattern: 'hit', caseSensitive: true, want: 'lines' } as const;
      const one = new RipgrepEngine('rg', ws.root, 1, undefined, false);
      const whole = await one.search(files, common, reader, new AbortController().signal);
      await one.close();
      const started = pids().length;
      const rg = new RipgrepEngine(join(bin, 'rg'), ws.root, 2);
      try {
        assert.deepEqual(await rg.search(files, common, reader, new AbortController().signal, 7), { found: whole.found.slice(0, 3), searched: 3 });
        // Not case-sensitive: ripgrep decides (Unicode case folding), one run per stripe.
        const folded = await rg.search(files, { ...common, pattern: 'HIT', caseSensitive: false }, reader, new AbortController().signal, 7);
        assert.deepEqual(folded, { found: whole.found.slice(0, 3), searched: 3 });
        assert.equal(pids().length, started + 2);
        // Files that vanished since they were listed: nothing to hand over. ripgrep without a
        // path would search its working directory by name (and took the page's whole timeout
        // on a large tree); no child starts.
        const gone = ['d/gone1.txt', 'd/gone2.txt'];
        assert.deepEqual(await rg.search(gone, common, reader, new AbortController().signal), { found: [], searched: 2 });
        assert.deepEqual(await rg.search(gone, { ...common, caseSensitive: false }, reader, new AbortController().signal, 7), { found: [], searched: 2 });
        assert.equal(pids().length, started + 2);
      } finally {
        await rg.close();
      }
    } finally {
      reader.close();
      ws.close();
    }
  });
});
