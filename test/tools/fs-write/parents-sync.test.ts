// A file written into directories the call creates survives a power loss once the call says
// succeeded: the new directories' entries are synced in their parents, not only the file and its
// own directory (ext4 happens to commit them together; XFS and btrfs need the parent's sync).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withTracedChild } from '../../support/strace.js';

void test('traced with strace, fs.write and fs.patch sync the parent of every directory they create before they answer', () =>
  withTracedChild('tg-parents-sync', new URL('./parents-sync-child.ts', import.meta.url).pathname, ['-e', 'trace=openat,mkdir,mkdirat,fsync,fdatasync,renameat2,rename'], (t, { ws }) => {
    // fsync(2) of a directory, by the path strace gives its descriptor (-y); a resumed call's
    // descriptor is on the line where it started.
    const synced = (part: string[]): string[] => part.flatMap((l) => (/\bfsync\(\d+<([^>]*)>/.exec(l)?.[1] ?? []));
    for (const [from, to, made] of [['write-begins', 'patch-begins', ['x', 'x/y']], ['patch-begins', 'end', ['p', 'p/q']]] as const) {
      const part = t.between(from, to);
      assert.ok(part.length > 0, `marks ${from} and ${to} in the trace`);
      // A line may end in `<unfinished ...>` when another thread's call is printed meanwhile.
      for (const dir of made) assert.ok(part.some((l) => new RegExp(`mkdir(at)?\\(.*"[^"]*/${dir.split('/').at(-1)}", 0755(\\) = 0| <unfinished)`).test(l)), `${dir} was created in ${from}`);
      const dirs = synced(part);
      // Each created directory's parent: the workspace itself and the first of the two.
      for (const parent of [ws, join(ws, made[0])]) assert.ok(dirs.includes(parent), `${parent} synced after ${from}; synced: ${dirs.join(', ')}`);
    }
  }));
