// An inotify instance, read without blocking: what fs.search's kept candidate lists
// (tools/fs-search/tree-watch.ts) and the sandbox's workspace scan (sandbox/workspace-scan.ts)
// watch their directories with, instead of an lstat of each directory before every use.
//
// Why not fs.watch: it neither reports a queue overflow nor lets a caller drain the pending
// events synchronously, and both callers must see a change made a moment before (by a shell
// command, another process): inotify queues an event inside the system call that makes the
// change, so a non-blocking read() right before the use returns every event of every change
// that has returned. Hence inotify_init1 and inotify_add_watch through koffi (libc.ts), and the
// fd read with readSync. Only local file systems are watched (inotify sees no change made on
// another NFS client): callers check watchableFileSystem and otherwise keep their lstats.
import { close, readSync, statfsSync } from 'node:fs';
import { libcFunction } from './libc.js';

type Num = (...args: unknown[]) => number;

const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
export const IN_MODIFY = 0x2;
export const IN_ATTRIB = 0x4;
export const IN_CLOSE_WRITE = 0x8;
export const IN_MOVED_FROM = 0x40;
export const IN_MOVED_TO = 0x80;
export const IN_CREATE = 0x100;
export const IN_DELETE = 0x200;
export const IN_DELETE_SELF = 0x400;
export const IN_MOVE_SELF = 0x800;
export const IN_Q_OVERFLOW = 0x4000;
export const IN_IGNORED = 0x8000;
export const IN_ONLYDIR = 0x1000000;
export const IN_DONT_FOLLOW = 0x2000000;
/** An entry of a watched directory created, deleted or moved in or out: what moves its mtime. */
export const IN_ENTRIES = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;
/** The watched object itself changed (chmod, chown, times), was deleted or moved, or ends the watch. */
export const IN_SELF = IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
/** A directory (not a link to one), for changes to its entries and to itself. */
export const DIRECTORY_MASK = IN_ENTRIES | IN_SELF | IN_ONLYDIR | IN_DONT_FOLLOW;
const HEADER = 16; // struct inotify_event: wd, mask, cookie, len; then len bytes of name

/** statfs f_type of the local file systems whose changes inotify reports. */
const LOCAL = new Set([0xef53 /* ext2/3/4 */, 0x58465342 /* xfs */, 0x9123683e /* btrfs */, 0x01021994 /* tmpfs */, 0xf2f52010 /* f2fs */, 0x2fc12fc1 /* zfs */]);

let calls: { init: Num; add: Num; rm: Num } | null | undefined;
function libc(): { init: Num; add: Num; rm: Num } | null {
  if (calls !== undefined) return calls;
  if (process.platform !== 'linux') return (calls = null);
  const init = libcFunction<Num>('int inotify_init1(int flags)');
  const add = libcFunction<Num>('int inotify_add_watch(int fd, const char *path, uint32_t mask)');
  const rm = libcFunction<Num>('int inotify_rm_watch(int fd, int wd)');
  return (calls = init && add && rm ? { init, add, rm } : null);
}

/** Whether inotify sees every change made to the file system holding `path` on this host. */
export function watchableFileSystem(path: string): boolean {
  try {
    return LOCAL.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

/** One event: the watch it came from (-1 with IN_Q_OVERFLOW), its mask, and the entry's name in a watched directory (null for the object itself). */
export type InotifyEvent = (wd: number, mask: number, name: string | null) => void;

export class Inotify {
  readonly #fd: number;
  readonly #buf = Buffer.allocUnsafe(64 * 1024);
  #closed = false;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** A new instance; null where inotify cannot be used (not Linux, no koffi, no instance left). */
  static open(): Inotify | null {
    const c = libc();
    if (!c) return null;
    const fd = c.init(IN_NONBLOCK | IN_CLOEXEC);
    return fd < 0 ? null : new Inotify(fd);
  }

  /** Watches `path` for `mask`; the watch descriptor (one per inode: the same again for the same inode), or -1 (ENOSPC, gone, not a directory with IN_ONLYDIR). */
  add(path: string, mask: number): number {
    if (this.#closed) return -1;
    const wd = (libc() as { add: Num }).add(this.#fd, path, mask);
    return wd < 0 ? -1 : wd;
  }

  /** Ends one watch (its IN_IGNORED event follows); a watch already gone is no error. */
  remove(wd: number): void {
    if (!this.#closed) (libc() as { rm: Num }).rm(this.#fd, wd);
  }

  /**
   * Reads every pending event, in order, until none is left or `onEvent` returns true (for a
   * caller done with the instance: the events read along with that one are dropped). False when
   * the instance cannot be read (closed, an error): events may have been lost.
   */
  drain(onEvent: (wd: number, mask: number, name: string | null) => boolean | void): boolean {
    if (this.#closed) return false;
    for (;;) {
      let n: number;
      try {
        n = readSync(this.#fd, this.#buf, 0, this.#buf.length, null);
      } catch (e) {
        return (e as NodeJS.ErrnoException).code === 'EAGAIN';
      }
      if (n <= 0) return true;
      for (let off = 0; off + HEADER <= n; ) {
        const wd = this.#buf.readInt32LE(off);
        const mask = this.#buf.readUInt32LE(off + 4);
        const len = this.#buf.readUInt32LE(off + 12);
        let name: string | null = null;
        if (len > 0) {
          const end = this.#buf.indexOf(0, off + HEADER);
          name = this.#buf.toString('utf8', off + HEADER, end < 0 || end > off + HEADER + len ? off + HEADER + len : end);
        }
        if (onEvent(wd, mask, name) === true) return true;
        off += HEADER + len;
      }
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Ends the instance (and with it every watch). On the thread pool: the kernel removes the
   * watches in close(), ~24 ms for ~3,000 of them.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    close(this.#fd, () => {});
  }
}
