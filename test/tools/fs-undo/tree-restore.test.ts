// fs.delete and fs.undo of a tree: what the delete needs for the undo is on disk before the tree
// moves; what the undo made is on disk before the tree takes its name, and making the inodes never
// holds the event loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs, { constants, mkdirSync, openSync, closeSync, readlinkSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { buildTree, CREATE_WINDOW, walkTree } from '../../../src/resources/index.js';
import { tempDirs } from '../../support/fixtures.js';
import { endedAt, withTracedChild } from '../../support/strace.js';

void test('traced with strace, fs.delete of a tree syncs its artifacts\' folders before the tree moves, and fs.undo syncs the rebuilt tree before it takes its name', () =>
  // Each fsync(2) is held 0.3 s on its way in: a folder sync left running while the tree moves
  // would then end after the move, on a machine of any speed.
  withTracedChild('tg-undo-sync', new URL('./tree-sync-child.ts', import.meta.url).pathname, ['-e', 'trace=%file,fsync,syncfs,sync', '-e', 'inject=fsync:delay_enter=300000'], (t) => {
    // fs.delete: each blob renamed to its digest (the manifest, the preimages) has its folder
    // synced before the tree is moved to the trash (.tg-….del).
    const del = t.between('delete-begins', 'undo-begins');
    const trashed = del.findIndex((l) => /\brename\("\/proc\/self\/fd\/\d+\/tree", "\/proc\/self\/fd\/\d+\/\.tg-[^"]*\.del"/.test(l));
    assert.ok(trashed > 0, 'the tree was moved to the trash');
    const named = del.flatMap((l, i) => {
      const m = /\brename\("[^"]*\/artifacts\/tmp\/[^"]*", "([^"]*\/artifacts\/sha256\/[0-9a-f]{2})\/[0-9a-f]+"/.exec(l);
      return m && i < trashed ? [{ folder: m[1] as string, at: i }] : [];
    });
    assert.ok(named.length >= 2, `the manifest and the preimages were named before the move (${named.length})`);
    for (const { folder, at } of named) {
      const synced = del.some((l, i) => i > at && l.includes(`fsync(`) && l.includes(`<${folder}>`) && endedAt(del, i) < trashed);
      assert.ok(synced, `${folder} synced after its blob's rename (line ${at}) and before the tree moved (line ${trashed})`);
    }

    // fs.undo: the tree is made under a temporary name (.tg-….restore) through its directories'
    // fds, synced, then renamed to `tree`.
    const lines = t.between('undo-begins');
    const made = lines.flatMap((l, i) => (/^\d+ +(openat\(AT_FDCWD(<[^>]*>)?, "\/proc\/self\/fd\/\d+\/(f\d+|link)", [^)]*O_CREAT|mkdir\("\/proc\/self\/fd\/\d+\/(d\d|\.tg-[^"]*\.restore)"|symlink\("[^"]*", "\/proc\/self\/fd\/\d+\/link")/.test(l) ? [endedAt(lines, i)] : []));
    const moved = lines.findIndex((l) => /renameat2?\(.*\.restore".*"tree"/.test(l) && !/= -1 /.test(l));
    const syncs = lines.flatMap((l, i) => (/^\d+ +(syncfs\(\d+|sync\()/.test(l) ? [{ start: i, end: endedAt(lines, i) }] : []));
    assert.equal(made.length, 30 + 3 + 1 + 1, `the restore's files, directories, link and top were traced (${made.length})`);
    assert.ok(moved > 0, 'the restored tree was renamed into place');
    const lastMade = Math.max(...made);
    assert.ok(syncs.some((x) => x.start > lastMade && x.end < moved), `a sync between the last creation (line ${lastMade}) and the rename (line ${moved}); syncs at ${syncs.map((x) => x.start).join(', ') || 'none'}`);
  }));

/** The tree under `name` in `dir`: each entry's kind, path, mode and content or target. */
async function shape(dir: string, name: string): Promise<string[]> {
  const fd = openSync(dir, 'r');
  try {
    const entries = await walkTree(fd, name, { maxEntries: 1_000, maxBytes: 1 << 20 }, true);
    return entries.map((e) => `${e.kind} ${e.path} ${e.mode.toString(8)} ${e.data?.toString() ?? e.target ?? ''}`).sort();
  } finally {
    closeSync(fd);
  }
}

void test('buildTree makes no inode with a synchronous call (one can take long in the kernel), and builds the same tree', async () => {
  const d = tempDirs('tg-undo-async');
  const dirfd = openSync(d.workspace, 'r');
  const original = { openSync: fs.openSync, mkdirSync: fs.mkdirSync, symlinkSync: fs.symlinkSync };
  const sync: string[] = [];
  try {
    for (let i = 0; i < 3 * CREATE_WINDOW + 1; i++) {
      mkdirSync(join(d.workspace, 'tree', `d${i % 3}`, 'deep'), { recursive: true });
      fs.writeFileSync(join(d.workspace, 'tree', `d${i % 3}`, i % 2 ? `f${i}` : `deep/f${i}`), `file ${i}\n`);
    }
    fs.symlinkSync('d0', join(d.workspace, 'tree', 'link'));
    const entries = await walkTree(dirfd, 'tree', { maxEntries: 1_000, maxBytes: 1 << 20 }, true);
    // Every later synchronous call that makes an inode is counted, in this module and in buildTree's.
    fs.openSync = ((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      if (typeof flags === 'number' && (flags & constants.O_CREAT) !== 0) sync.push(`open ${String(path)}`);
      return original.openSync(path, flags ?? 'r', mode);
    }) as typeof fs.openSync;
    fs.mkdirSync = ((path: fs.PathLike, options?: fs.Mode | fs.MakeDirectoryOptions) => {
      sync.push(`mkdir ${String(path)}`);
      return original.mkdirSync(path, options as fs.Mode);
    }) as typeof fs.mkdirSync;
    fs.symlinkSync = ((target: fs.PathLike, path: fs.PathLike, type?: fs.symlink.Type | null) => {
      sync.push(`symlink ${String(path)}`);
      original.symlinkSync(target, path, type);
    }) as typeof fs.symlinkSync;
    syncBuiltinESMExports();
    closeSync(openSync(join(d.workspace, 'probe'), constants.O_WRONLY | constants.O_CREAT, 0o600)); // the counting reaches ESM imports
    assert.equal(sync.length, 1);
    sync.length = 0;
    await buildTree(dirfd, 'copy', entries);
    assert.deepEqual(sync, []);
  } finally {
    Object.assign(fs, original);
    syncBuiltinESMExports();
    closeSync(dirfd);
  }
  try {
    assert.deepEqual(await shape(d.workspace, 'copy'), await shape(d.workspace, 'tree'));
    assert.equal(readlinkSync(join(d.workspace, 'copy', 'link')), 'd0');
  } finally {
    d.cleanup();
  }
});
