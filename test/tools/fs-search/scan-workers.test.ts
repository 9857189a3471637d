// Full scans of a case-sensitive literal on worker threads (scan-workers.ts), against ripgrep
// itself over the same files, and what the pool does with descriptors, aborts and failures.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { write } from './fixture.js';
import { Workspace } from '../../../src/resources/index.js';
import { FileReader } from '../../../src/tools/fs-search/file-access.js';
import { comparePaths } from '../../../src/tools/fs-search/order.js';
import { RipgrepEngine } from '../../../src/tools/fs-search/engines/ripgrep.js';
import { IN_PROCESS_MAX_BYTES } from '../../../src/tools/fs-search/engines/literal-scan.js';
import { scanAll, ScanWorkers } from '../../../src/tools/fs-search/engines/scan-workers.js';
import type { ContentQuery } from '../../../src/tools/fs-search/engines/types.js';
import { ToolgateError } from '../../../src/protocol/index.js';

/** This process's descriptors open on something beneath `dir` (other descriptors come and go: tsx's compiler, worker threads). */
function openBeneath(dir: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(dir + '/')) out.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

describe('fs.search full scans on worker threads', () => {
  let root: string;
  const files: string[] = [];
  const pool = new ScanWorkers(2);
  before(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'fs-search-workers-')));
    const add = (path: string, content: string | Buffer): void => {
      write(root, path, content);
      files.push(path);
    };
    // Enough files for many slices (256 files each) over both workers, in varied shapes.
    for (let i = 0; i < 1500; i++) {
      const n = i % 7;
      add(`d${i % 13}/f${String(i).padStart(4, '0')}.txt`, `${'ab '.repeat(n)}\r\nx\0y ab\n${'\xff'.repeat(n % 2)}aab\n`.repeat(1 + (i % 3)));
    }
    // A file after the ones ripgrep takes: ripgrep's answers are merged in path order, not appended.
    add('z/after.txt', 'ab after\n');
    add('s/bom-utf8.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('ab x ab\r\nab\n')]));
    add('s/bom-utf16.txt', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('\0a\0b\0\n', 'latin1')]));
    add('s/zz-large.txt', Buffer.concat([Buffer.from('ab first\n'), Buffer.alloc(IN_PROCESS_MAX_BYTES, 'y\n'), Buffer.from('last ab\n')]));
    add('s/none.txt', 'nothing to see\n');
    execFileSync('mkfifo', [join(root, 's/fifo')]);
    files.push('s/fifo');
    symlinkSync('/etc/passwd', join(root, 's/link'));
    files.push('s/link');
    files.sort(comparePaths);
  });
  after(async () => {
    await pool.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lets the event loop run after every slice it sends, also when the workers have answered the slice it waits for', async () => {
    // A settled slice's await is a microtask: before, the files of slice after slice were opened
    // without a turn of the event loop (50,000 small files: 90–117 ms held).
    const ws = Workspace.open(root);
    const reader = new FileReader(ws);
    const one = new ScanWorkers(1);
    try {
      const small = files.filter((f) => f.startsWith('d'));
      let pauses = 0;
      const pause = async (): Promise<void> => {
        pauses++;
        // Long enough for the workers to answer what was sent: every later wait finds it settled.
        await new Promise((resolve) => setTimeout(resolve, 20));
      };
      const q: ContentQuery = { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'counts' };
      const answer = await scanAll(small, q, reader, new AbortController().signal, one, () => Promise.reject(new Error('nothing to delegate')), undefined, pause);
      assert.equal(answer.found.length, small.length);
      assert.equal(pauses, Math.floor(small.length / 256), `${small.length} files in slices of 256`);
    } finally {
      reader.close();
      await one.close();
      ws.close();
    }
  });

  it('counts, lists and finds what ripgrep does, byte order marks and a large file by ripgrep itself, and closes every descriptor', async () => {
    const ws = Workspace.open(root);
    try {
      for (const want of ['counts', 'paths', 'lines'] as const) {
        const q: ContentQuery = { kind: 'literal', pattern: 'ab', caseSensitive: true, want };
        const r1 = new FileReader(ws);
        const r2 = new FileReader(ws);
        try {
          const oracle = new RipgrepEngine('rg', ws.root, 2, undefined, false);
          const rg = await oracle.search(files, q, r1, new AbortController().signal);
          await oracle.close();
          const engine = new RipgrepEngine('rg', ws.root, 2, undefined, true, pool);
          const here = await engine.search(files, q, r2, new AbortController().signal);
          await engine.close();
          r1.close(); // their directories
          r2.close();
          assert.deepEqual(openBeneath(root), [], `${want}: every descriptor handed to a worker is closed`);
          assert.ok(rg.found.length > 1400, want);
          assert.deepEqual(here, rg, want);
          const of = (path: string) => here.found.find((f) => f.path === path);
          if (want === 'lines') {
            assert.deepEqual(of('s/bom-utf8.txt')?.hits.map((h) => h.column), [1, 6, 1]);
            assert.deepEqual(of('s/zz-large.txt')?.hits.map((h) => h.text), ['ab first', 'last ab']);
          }
          assert.ok(of('s/bom-utf16.txt'), `${want}: the UTF-16 file is transcoded by ripgrep and found`);
          // Without a file that needs ripgrep, no child starts at all (there is no ripgrep here).
          const plain = files.filter((f) => f.startsWith('d'));
          const r3 = new FileReader(ws);
          try {
            const childless = new RipgrepEngine('/nonexistent/rg', ws.root, 2, undefined, true, pool);
            assert.deepEqual(await childless.search(plain, q, r3, new AbortController().signal), { found: rg.found.filter((f) => f.path.startsWith('d')), searched: plain.length }, want);
          } finally {
            r3.close();
          }
        } finally {
          r1.close();
          r2.close();
        }
      }
    } finally {
      ws.close();
    }
  });

  it('answers delegate for a file that holds more than its size when opened (it grew), and for a byte order mark', async () => {
    const grew = openSync(join(root, 'd0/f0000.txt'), 'r');
    const bom = openSync(join(root, 's/bom-utf8.txt'), 'r');
    const plain = openSync(join(root, 's/none.txt'), 'r');
    try {
      const needle = Buffer.from('ab');
      assert.deepEqual(await pool.ask(needle, 'counts', [grew, bom, plain], [3, 100, 100]), ['delegate', 'delegate', null]);
    } finally {
      for (const fd of [grew, bom, plain]) closeSync(fd);
    }
  });

  it('stops when its signal aborts, with the reason, and closes every descriptor it opened', async () => {
    const ws = Workspace.open(root);
    const reader = new FileReader(ws);
    try {
      const q: ContentQuery = { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'counts' };
      const ac = new AbortController();
      // Aborted after the first slices are sent (the scan gives the event loop a turn between slices).
      setImmediate(() => ac.abort(new Error('stop now')));
      let delegated = false;
      await assert.rejects(
        scanAll(files, q, reader, ac.signal, pool, async () => {
          delegated = true;
          return { found: [], searched: 0 };
        }),
        /stop now/,
      );
      assert.equal(delegated, false, 'nothing is searched after the abort');
      reader.close();
      assert.deepEqual(openBeneath(root), []);
    } finally {
      reader.close();
      ws.close();
    }
  });

  it('a worker that dies fails the scan as execution_failed, and the next scan gets a new worker', async () => {
    const own = new ScanWorkers(1);
    try {
      // A malformed request makes the worker throw outside its per-file guard: it exits.
      await assert.rejects(own.ask(Buffer.from('ab'), 'counts', null as unknown as number[], []), /./);
      const fd = openSync(join(root, 'd1/f0001.txt'), 'r');
      try {
        const [answer] = await own.ask(Buffer.from('ab'), 'counts', [fd], [1_000]);
        assert.ok(answer !== undefined && answer !== null && answer !== 'delegate' && answer.count > 0);
      } finally {
        closeSync(fd);
      }
      // Through scanAll, a failure is a typed error.
      const ws = Workspace.open(root);
      const reader = new FileReader(ws);
      try {
        const broken = { size: 1, ask: () => Promise.reject(new Error('worker gone')) } as unknown as ScanWorkers;
        await assert.rejects(scanAll(files.slice(0, 600), { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'counts' }, reader, new AbortController().signal, broken, () => Promise.reject(new Error('unused'))), (e: unknown) => (e as { code?: string }).code === 'execution_failed');
        reader.close();
        assert.deepEqual(openBeneath(root), [], 'the descriptors of the failed slices are closed');
        // An open that fails partway through a slice (out of descriptors): the ones opened before it are closed.
        let opened = 0;
        const failing = {
          open: (path: string): number | null => {
            if (++opened > 300) throw new ToolgateError('execution_failed', 'out of descriptors (test)', {});
            return reader.open(path);
          },
          openedSize: (path: string): number | null => reader.openedSize(path),
        } as unknown as FileReader;
        await assert.rejects(scanAll(files, { kind: 'literal', pattern: 'ab', caseSensitive: true, want: 'counts' }, failing, new AbortController().signal, pool, () => Promise.reject(new Error('unused'))), /out of descriptors/);
        reader.close();
        assert.deepEqual(openBeneath(root), [], 'the descriptors opened before the failure are closed');
      } finally {
        reader.close();
        ws.close();
      }
    } finally {
      await own.close();
    }
    await assert.rejects(own.ask(Buffer.from('ab'), 'counts', [], []), /disposed/);
  });
});
