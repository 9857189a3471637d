// syncfs(2): makes every file and directory of one file system durable in one call. A tree
// rebuilt by fs.undo (tree.ts, buildTree) is thousands of new files and directories: one
// fdatasync each, even 16 at a time on the thread pool, took 0.2-0.6 s per 2,000 files here;
// one syncfs of the same 20,000 took 0.16 s. Its cost also covers other dirty data of that file
// system, which a tree of this size usually outweighs.
//
// Node has no binding for syncfs (libc.ts calls it through koffi, on the thread pool: it can take
// long, and must not hold the event loop). Without koffi the fallback is sync(1): every file
// system, but the same promise.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { errnoError, lastErrno, libcFunction } from './libc.js';

interface Syncfs {
  (fd: number): number;
  async(fd: number, done: (err: unknown, result: number) => void): void;
}
const SIGNATURE = 'int syncfs(int fd)';

const execFileAsync = promisify(execFile);

/** Every dirty file and directory of the file system that holds `fd`, on disk. */
export async function syncFileSystem(fd: number): Promise<void> {
  const syncfs = libcFunction<Syncfs>(SIGNATURE);
  if (syncfs === null) {
    await execFileAsync('sync');
    return;
  }
  const r = await new Promise<number>((resolve, reject) => syncfs.async(fd, (e, n) => (e ? reject(e instanceof Error ? e : new Error(String(e))) : resolve(n))));
  if (r !== 0) throw errnoError('syncfs', `fd ${fd}`, lastErrno());
}
