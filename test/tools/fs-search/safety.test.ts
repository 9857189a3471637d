import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { harness, makeRepo, warmList, write } from './fixture.js';
import { createFsSearch } from '../../../src/tools/fs-search/tool.js';
import { FIRST_BATCH } from '../../../src/tools/fs-search/batches.js';
import type { AnyTool } from '../../../src/registry/index.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';
import { alive } from '../../support/processes.js';

let root: string;
before(() => {
  root = makeRepo();
  write(root, 'src/long.txt', 'a'.repeat(100_000) + '!\n');
});
after(() => rmSync(root, { recursive: true, force: true }));

describe('fs.search regex safety and stopping the work', () => {
  it('ripgrep runs a catastrophic pattern in linear time', async () => {
    const h = await harness(root);
    try {
      // A backtracking engine would not end on this in any time: a generous bound proves it.
      const r = await h.call({ mode: 'regex', query: '(a+)+$', output: 'count_only', timeout_ms: 60_000 });
      const res = r.result as FsSearchResult;
      assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
      assert.equal(res.truncated, false);
      assert.deepEqual(res.counts, []);
    } finally {
      await h.close();
    }
  });

  it('without ripgrep, a catastrophic pattern returns at its timeout and the matching stops', async () => {
    const h = await harness(root, [createFsSearch({ engine: 'javascript' }) as unknown as AnyTool]);
    try {
      // The list is kept, so the timeout is spent on the match, however loaded the machine.
      await warmList(h);
      const started = Date.now();
      const r = await h.call({ mode: 'regex', query: '(a+)+$', include: ['src/long.txt'], timeout_ms: 1000 });
      const elapsed = Date.now() - started;
      assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
      const res = r.result as FsSearchResult;
      assert.equal(res.truncated, true);
      assert.equal(res.truncation_reason, 'timeout');
      assert.deepEqual(res.matches, []);
      // The match alone would run for hours: returning within seconds is the promise.
      assert.ok(elapsed < 15_000, `returned after ${elapsed} ms`);
      // The worker was terminated: the process burns no more CPU on the pattern.
      const cpu = process.cpuUsage();
      await sleep(500);
      const used = process.cpuUsage(cpu);
      assert.ok((used.user + used.system) / 1000 < 200, `still burning CPU: ${JSON.stringify(used)}`);
    } finally {
      await h.close();
    }
  });

  it('falls back to the JavaScript engine when ripgrep is not installed, with the same answer', async () => {
    const h = await harness(root, [createFsSearch({ ripgrep: join(root, 'no-such-rg') }) as unknown as AnyTool]);
    const rg = await harness(root);
    try {
      const r = (await h.call({ query: 'needle' })).result as FsSearchResult;
      const want = (await rg.call({ query: 'needle' })).result as FsSearchResult;
      assert.equal(r.engine, 'javascript');
      assert.equal(want.engine, 'ripgrep');
      assert.deepEqual(r.matches, want.matches);
      assert.deepEqual(r.skipped, want.skipped);
    } finally {
      await h.close();
      await rg.close();
    }
  });

  it('a page that times out keeps what the batches before the slow one found, and says where to resume', async () => {
    for (let i = 0; i < FIRST_BATCH + 50; i++) write(root, `many/f${String(i).padStart(4, '0')}.txt`, 'aaa\n');
    write(root, 'many/z.txt', 'a'.repeat(50_000) + '!\n');
    const h = await harness(root, [createFsSearch({ engine: 'javascript' }) as unknown as AnyTool]);
    try {
      // Listing is not timed (kept list); the first batch has seconds, the slow file never ends.
      await warmList(h);
      const r = await h.call({ mode: 'regex', query: '(a+)+$', include: ['many/**'], timeout_ms: 5000, max_results: 10_000 });
      const res = r.result as FsSearchResult;
      assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
      assert.equal(res.truncation_reason, 'timeout');
      assert.ok((res.matches?.length ?? 0) >= FIRST_BATCH, `kept ${res.matches?.length}`);
      assert.deepEqual(res.matches?.[0], { path: 'many/f0000.txt', line: 1, column: 1, end_column: 4, text: 'aaa' });
      assert.equal(typeof res.continuation, 'string');
    } finally {
      await h.close();
      rmSync(join(root, 'many'), { recursive: true, force: true });
    }
  });

  it('a tracked file replaced by a link to outside the root is not searched through the link', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'fs-search-out-'));
    writeFileSync(join(outside, 'private.txt'), 'needle from outside\n');
    // The index still says lib.js is a regular file; the work tree now holds a link.
    rmSync(join(root, 'lib.js'));
    symlinkSync(join(outside, 'private.txt'), join(root, 'lib.js'));
    for (const engine of ['ripgrep', 'javascript'] as const) {
      const h = await harness(root, [createFsSearch({ engine }) as unknown as AnyTool]);
      try {
        const r = (await h.call({ query: 'outside', include_ignored: true, include_generated: true })).result as FsSearchResult;
        assert.deepEqual(r.matches, [], engine);
        const all = (await h.call({ query: 'needle', output: 'paths_only' })).result as FsSearchResult;
        assert.equal(all.paths?.includes('lib.js'), false, engine);
      } finally {
        await h.close();
      }
    }
    rmSync(join(root, 'lib.js'));
    writeFileSync(join(root, 'lib.js'), 'const a = "needle";\n');
    rmSync(outside, { recursive: true, force: true });
  });

  it('without ripgrep, lookaround (which ripgrep rejects) is invalid_arguments', async () => {
    const h = await harness(root, [createFsSearch({ engine: 'javascript' }) as unknown as AnyTool]);
    try {
      const r = await h.call({ mode: 'regex', query: 'needle(?=\\()' });
      assert.equal(r.error?.code, 'invalid_arguments');
      const bad = await h.call({ mode: 'regex', query: '[z-a]' });
      assert.equal(bad.error?.code, 'invalid_arguments');
      assert.match(String((bad.error?.data['faults'] as { message: string }[])[0]?.message), /Range out of order/);
    } finally {
      await h.close();
    }
  });

  it('kills the engine process at the timeout: no child outlives the call', async () => {
    // A stand-in ripgrep that records its pid and never finishes.
    const bin = join(root, '..', `slow-rg-${process.pid}.sh`);
    const pids = join(root, '..', `slow-rg-${process.pid}.pids`);
    writeFileSync(bin, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo 'ripgrep 13.0.0'; exit 0; fi\necho $$ >> '${pids}'\nexec sleep 30\n`);
    chmodSync(bin, 0o755);
    const h = await harness(root, [createFsSearch({ ripgrep: bin }) as unknown as AnyTool]);
    try {
      // Filename mode lists without the engine; the timed call then spends its time on it.
      await warmList(h);
      const started = Date.now();
      // Not case-sensitive, so that ripgrep (here the stand-in) searches the first page: a
      // case-sensitive literal's is scanned in process (literal-scan.test.ts stops that one).
      const r = await h.call({ query: 'needle', case_sensitive: false, timeout_ms: 1000 });
      // The stand-in runs for 30 s: returning well before proves it was stopped.
      assert.ok(Date.now() - started < 15_000);
      assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
      const res = r.result as FsSearchResult;
      assert.equal(res.truncation_reason, 'timeout');
      assert.equal(res.truncated, true);
      assert.ok(existsSync(pids));
      const started_pids = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
      assert.ok(started_pids.length >= 1);
      for (const pid of started_pids) assert.equal(alive(pid), false, `engine ${pid} still running`);
      // A timed-out page still resumes: the continuation starts where the page stopped.
      assert.equal(typeof res.continuation, 'string');
    } finally {
      await h.close();
      rmSync(bin, { force: true });
      rmSync(pids, { force: true });
    }
  });

  it('cancellation by the client ends the call and kills the engine process', async () => {
    const bin = join(root, '..', `slow-rg2-${process.pid}.sh`);
    const pids = join(root, '..', `slow-rg2-${process.pid}.pids`);
    writeFileSync(bin, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo 'ripgrep 13.0.0'; exit 0; fi\necho $$ >> '${pids}'\nexec sleep 30\n`);
    chmodSync(bin, 0o755);
    const h = await harness(root, [createFsSearch({ ripgrep: bin }) as unknown as AnyTool]);
    try {
      const ac = new AbortController();
      const pending = h.rt.call({ protocol_version: 'tool-call.v1', task_id: 't1', tool: 'fs.search', arguments: { query: 'needle', case_sensitive: false, timeout_ms: 60_000 } }, { signal: ac.signal });
      for (let i = 0; i < 100 && !existsSync(pids); i++) await sleep(20);
      ac.abort();
      const r = await pending;
      assert.equal(r.status, 'cancelled');
      for (const pid of readFileSync(pids, 'utf8').trim().split('\n').map(Number)) assert.equal(alive(pid), false);
    } finally {
      await h.close();
      rmSync(bin, { force: true });
      rmSync(pids, { force: true });
    }
  });
});

describe('fs.search and a huge sparse file', () => {
  it('a 1 TiB sparse file (binary) is not handed to ripgrep: the search completes within its timeout and finds the text file', async () => {
    const big = makeRepo();
    try {
      write(big, 'notes.txt', 'zqxneedle42 here\n');
      execFileSync('truncate', ['-s', '1T', join(big, 'zeros.bin')]);
      const h = await harness(big);
      try {
        // Before: ripgrep (--text) read the zeros until the search's timeout (10 s) cut it short.
        const r = await h.call({ query: 'zqxneedle42', include_ignored: true, timeout_ms: 60_000 });
        const res = r.result as FsSearchResult;
        assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
        assert.equal(res.truncated, false, JSON.stringify(res));
        assert.deepEqual((res.matches ?? []).map((m) => m.path), ['notes.txt']);
      } finally {
        await h.close();
      }
    } finally {
      rmSync(big, { recursive: true, force: true });
    }
  });
});
