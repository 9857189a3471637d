// A large delete lets the event loop run (src/resources/paths/pacer.ts): fs.delete of a tree of
// 20,000 files held it, and so every other call on the server, for 0.6 s; of one 200 MB file,
// 0.5 s. The count of pauses is fixed by the input (every PACE_ENTRIES entries, every PACE_BYTES
// bytes), not by the machine's speed, so these tests count turns rather than time them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, futimesSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildTree, openWriteTargetPaced, PACE_BYTES, PACE_ENTRIES, removeTree, TreePacer, walkTree, Workspace } from '../../../src/resources/index.js';
import { ToolgateError } from '../../../src/protocol/index.js';
import { tempDirs } from '../../support/fixtures.js';
import { withHarness } from '../fs-write/harness.js';

function makeTree(root: string, files: number, bytes = 1): void {
  for (let i = 0; i < files; i++) {
    const dir = join(root, `d${i % 10}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}`), Buffer.alloc(bytes, i % 251));
  }
}

/**
 * What `probe` saw at each turn of the event loop (setImmediate) while `run` lasted. A turn
 * that sees the work half done shows that the work let the event loop run in its middle; that
 * holds on a machine of any speed (waits for I/O give turns too, so their count shows nothing).
 */
async function seenDuring<T, S>(run: () => Promise<T>, probe: () => S): Promise<{ value: T; seen: S[] }> {
  const seen: S[] = [];
  let done = false;
  const spin = (): void => {
    if (done) return;
    seen.push(probe());
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await run(), seen };
  } finally {
    done = true;
  }
}

/** Files beneath `dir` (0 when it is gone). */
function filesUnder(dir: string): number {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  } catch {
    return 0;
  }
}

/** The sizes of the artifact parts being written under the state folder. */
function partSizes(state: string): number[] {
  try {
    return readdirSync(state, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && relative(state, e.parentPath).split('/').includes('tmp'))
      .map((e) => statSync(join(e.parentPath, e.name)).size);
  } catch {
    return [];
  }
}

test('walkTree, removeTree and buildTree pause every PACE_ENTRIES entries and every PACE_BYTES bytes', async () => {
  const d = tempDirs('tg-pace');
  try {
    makeTree(join(d.workspace, 'tree'), 1_000);
    const dirfd = openSync(d.workspace, 'r');
    try {
      let pauses = 0;
      const counting = (): TreePacer => new TreePacer(async () => void pauses++);
      const entries = await walkTree(dirfd, 'tree', { maxEntries: 10_000, maxBytes: 1 << 30 }, true, counting());
      assert.equal(entries.length, 1_011); // the top, 10 directories, 1,000 files
      assert.equal(pauses, Math.floor(1_011 / PACE_ENTRIES));

      pauses = 0;
      await buildTree(dirfd, 'copy', entries, counting());
      assert.equal(pauses, Math.floor(1_011 / PACE_ENTRIES));
      assert.deepEqual(readdirSync(join(d.workspace, 'copy')).sort(), readdirSync(join(d.workspace, 'tree')).sort());
      assert.deepEqual(readFileSync(join(d.workspace, 'copy/d3/f3')), readFileSync(join(d.workspace, 'tree/d3/f3')));

      pauses = 0;
      assert.equal(await removeTree(dirfd, 'copy', counting()), 1_011);
      assert.equal(pauses, Math.floor(1_011 / PACE_ENTRIES));
      assert.equal(existsSync(join(d.workspace, 'copy')), false);

      // One file of 2.5 slices is read in three slices with a pause between each two.
      mkdirSync(join(d.workspace, 'fat'));
      writeFileSync(join(d.workspace, 'fat/big'), Buffer.alloc(PACE_BYTES * 2 + PACE_BYTES / 2, 7));
      pauses = 0;
      const fat = await walkTree(dirfd, 'fat', { maxEntries: 10, maxBytes: 1 << 30 }, true, counting());
      assert.equal(pauses, 2);
      assert.equal(fat[1]?.data?.length, PACE_BYTES * 2 + PACE_BYTES / 2);
      assert.equal(fat[1]?.data?.every((b) => b === 7), true);
    } finally {
      closeSync(dirfd);
    }
  } finally {
    d.cleanup();
  }
});

void test('fs.delete of a tree of 3,000 files lets the event loop run while it removes it, and removes it whole', () =>
  withHarness(async (h) => {
    makeTree(join(h.root, 'tree'), 3_000);
    // The tree is moved aside (`.tg-…del`) and removed there: some turn sees it partly removed.
    const trash = (): number => {
      const name = readdirSync(h.root).find((n) => n.endsWith('.del'));
      return name === undefined ? -1 : filesUnder(join(h.root, name));
    };
    const { value: r, seen } = await seenDuring(() => h.call('fs.delete', { path: 'tree', recursive: true }), trash);
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal((r.result as { entries_removed: number }).entries_removed, 3_011);
    assert.equal(existsSync(join(h.root, 'tree')), false);
    const partly = seen.filter((n) => n > 0 && n < 3_000);
    assert.ok(partly.length >= 2, `turns that saw the trash partly removed: ${partly.length} (of ${seen.length} turns, files left then: ${[...new Set(seen)].join(', ')})`);
  }));

void test('fs.delete of a file of 3 slices writes its preimage between turns, and fs.undo writes it back between turns', () =>
  withHarness(async (h) => {
    const size = PACE_BYTES * 3;
    const data = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4096) data[i] = (i / 4096) % 256;
    writeFileSync(join(h.root, 'big.bin'), data);
    const state = join(h.root, '..', 'state');
    const { value: r, seen } = await seenDuring(() => h.call('fs.delete', { path: 'big.bin' }), () => partSizes(state));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(existsSync(join(h.root, 'big.bin')), false);
    // Some turn saw the preimage's part with one or two slices of three written.
    const partial = seen.flat().filter((n) => n > 0 && n < size);
    assert.ok(partial.length >= 1, `part sizes seen between turns: ${[...new Set(seen.flat())].join(', ')}`);
    // The undo reads the preimage and writes the file back a slice at a time: some turn sees the
    // staged file (`.tg-….tmp` beside it) partly written.
    const staged = (): number[] => readdirSync(h.root).filter((n) => n.startsWith('.tg-') && n.endsWith('.tmp')).map((n) => statSync(join(h.root, n)).size);
    const { value: u, seen: stagedSeen } = await seenDuring(() => h.call('fs.undo', { receipt_id: r.receipt_id }), staged);
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.deepEqual(readFileSync(join(h.root, 'big.bin')), data);
    const written = stagedSeen.flat().filter((n) => n > 0 && n < size);
    assert.ok(written.length >= 1, `staged sizes seen between turns: ${[...new Set(stagedSeen.flat())].join(', ')}`);
  }));

void test('a file opened for a rewrite or a delete is read a slice at a time, and a change between slices is refused', async () => {
  // fs.delete of one 200 MB file read it at once: ~0.1 s of a held event loop (bench/holds).
  const d = tempDirs('tg-pace-read');
  const ws = Workspace.open(d.workspace);
  try {
    const size = PACE_BYTES * 2 + 5;
    const data = Buffer.alloc(size);
    for (let i = 0; i < size; i += 4096) data[i] = (i / 4096) % 251;
    writeFileSync(join(d.workspace, 'big.bin'), data);
    const target = { path: 'big.bin', dir: [], name: 'big.bin', exists: true, parent: null };
    let pauses = 0;
    const opened = await openWriteTargetPaced(ws, target, { createParents: false, maxBytes: 1 << 30 }, new TreePacer(async () => void pauses++));
    try {
      assert.equal(pauses, 2, 'a turn after each full slice');
      assert.deepEqual(opened.current?.data, data);
      assert.equal(opened.state.kind, 'file');
    } finally {
      opened.close();
    }
    // The file rewritten in place between two slices: the read is refused, not half old, half new.
    const changing = new TreePacer(async () => {
      const fd = openSync(join(d.workspace, 'big.bin'), 'r+');
      try {
        writeSync(fd, Buffer.from('changed'), 0, 7, size - 7);
        futimesSync(fd, new Date(), new Date(Date.now() + 5_000));
      } finally {
        closeSync(fd);
      }
    });
    await assert.rejects(openWriteTargetPaced(ws, target, { createParents: false, maxBytes: 1 << 30 }, changing), (e: unknown) => ToolgateError.isInstance(e) && e.code === 'precondition_failed');
  } finally {
    ws.close();
    d.cleanup();
  }
});
