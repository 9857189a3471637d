// The directories of a kept candidate list watched with inotify, so that checking the list before
// each search is one read() instead of an lstat per directory (issue 14).
//
// Why: the check lstat'ed every directory git's walk reads on every search; a tree of ~3,000
// directories cost ~10 ms of the event loop a page, on a core the ripgrep children need (the
// first page of a common literal is ~25 ms). Node's fs.watch neither reports a queue overflow
// nor lets a caller drain pending events synchronously, and a search must see a change made a
// moment before it (by a shell command, another process): inotify queues an event inside the
// system call that makes the change, so a non-blocking read() right before the search returns
// every event of every change that has returned. Hence inotify_init1 and inotify_add_watch
// through koffi (src/resources/paths/libc.ts), and the fd read here with readSync.
//
// What counts as a change (anything else is read and ignored):
// - in a watched directory, an entry created, deleted or moved in or out (what moves its mtime);
// - any event on a `.gitignore` inside one, or on the directory itself (chmod, chown, deleted,
//   moved, unmounted: what moves its ctime or ends the watch);
// - a queue overflow: events may be lost, so the list is dropped.
// Paths are watched without following a final link; the caller adds a directory's watch before
// those of what it holds and compares each path with what it recorded after adding its watch
// (candidate-cache.ts), so a directory swapped for a link is seen either way. Only local file
// systems are watched (inotify sees no change made on another NFS client); elsewhere, or
// without koffi or watches (ENOSPC), the caller keeps its lstats.
import { close, readSync, statfsSync } from 'node:fs';
import { libcFunction } from '../../resources/index.js';

type Num = (...args: unknown[]) => number;

const IN_NONBLOCK = 0o4000;
const IN_CLOEXEC = 0o2000000;
const IN_MODIFY = 0x2;
const IN_ATTRIB = 0x4;
const IN_CLOSE_WRITE = 0x8;
const IN_MOVED_FROM = 0x40;
const IN_MOVED_TO = 0x80;
const IN_CREATE = 0x100;
const IN_DELETE = 0x200;
const IN_DELETE_SELF = 0x400;
const IN_MOVE_SELF = 0x800;
const IN_Q_OVERFLOW = 0x4000;
const IN_ONLYDIR = 0x1000000;
const IN_DONT_FOLLOW = 0x2000000;
const ENTRIES = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO;
const SELF = IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
const DIR_MASK = ENTRIES | SELF | IN_ONLYDIR | IN_DONT_FOLLOW;
const FILE_MASK = IN_MODIFY | IN_CLOSE_WRITE | SELF | IN_DONT_FOLLOW;
const HEADER = 16; // struct inotify_event: wd, mask, cookie, len; then len bytes of name

/** statfs f_type of the local file systems whose changes inotify reports. */
const LOCAL = new Set([0xef53 /* ext2/3/4 */, 0x58465342 /* xfs */, 0x9123683e /* btrfs */, 0x01021994 /* tmpfs */, 0xf2f52010 /* f2fs */, 0x2fc12fc1 /* zfs */]);

let calls: { init: Num; add: Num } | null | undefined;
function libc(): { init: Num; add: Num } | null {
  if (calls !== undefined) return calls;
  if (process.platform !== 'linux') return (calls = null);
  const init = libcFunction<Num>('int inotify_init1(int flags)');
  const add = libcFunction<Num>('int inotify_add_watch(int fd, const char *path, uint32_t mask)');
  return (calls = init && add ? { init, add } : null);
}

/** Whether inotify sees every change made to the file system holding `path` on this host. */
export function watchableFileSystem(path: string): boolean {
  try {
    return LOCAL.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

export class TreeWatch {
  readonly #fd: number;
  /** Watch descriptor → a `.gitignore` file (true) or a directory (false). */
  readonly #files = new Map<number, boolean>();
  readonly #buf = Buffer.allocUnsafe(64 * 1024);
  #changed = false;
  #closed = false;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** A new inotify instance; null where inotify cannot be used (no koffi, no instance left). */
  static open(): TreeWatch | null {
    const c = libc();
    if (!c) return null;
    const fd = c.init(IN_NONBLOCK | IN_CLOEXEC);
    return fd < 0 ? null : new TreeWatch(fd);
  }

  /** Watches the directory at `path` (not a link); false when no watch could be added (ENOSPC, gone). */
  addDirectory(path: string): boolean {
    return this.#add(path, DIR_MASK, false);
  }

  /** Watches the `.gitignore` at `path` (a link itself, not its target). */
  addIgnoreFile(path: string): boolean {
    return this.#add(path, FILE_MASK, true);
  }

  #add(path: string, mask: number, file: boolean): boolean {
    const wd = (libc() as { add: Num }).add(this.#fd, path, mask);
    if (wd < 0) return false;
    // One inode added twice (a hard-linked .gitignore) keeps one wd: a file's events then count.
    if (file || !this.#files.has(wd)) this.#files.set(wd, file);
    return true;
  }

  /**
   * Whether anything that decides the list changed since the watches were added: reads every
   * pending event. Once true it stays true (the caller drops the list and closes this).
   */
  changed(): boolean {
    if (this.#changed || this.#closed) return true;
    for (;;) {
      let n: number;
      try {
        n = readSync(this.#fd, this.#buf, 0, this.#buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        return (this.#changed = true);
      }
      if (n <= 0) return false;
      for (let off = 0; off + HEADER <= n; ) {
        const wd = this.#buf.readInt32LE(off);
        const mask = this.#buf.readUInt32LE(off + 4);
        const len = this.#buf.readUInt32LE(off + 12);
        if (this.#relevant(wd, mask, off + HEADER, len)) return (this.#changed = true);
        off += HEADER + len;
      }
    }
  }

  #relevant(wd: number, mask: number, nameAt: number, len: number): boolean {
    if (mask & IN_Q_OVERFLOW) return true;
    const file = this.#files.get(wd);
    if (file === undefined) return true; // not ours: be safe
    if (file || len === 0) return true; // a .gitignore, or the directory itself
    if (mask & ENTRIES) return true;
    const end = this.#buf.indexOf(0, nameAt);
    return this.#buf.toString('utf8', nameAt, end < 0 || end > nameAt + len ? nameAt + len : end) === '.gitignore';
  }

  /**
   * Ends the inotify instance (and with it every watch). On the thread pool: the kernel removes
   * the watches in close(), ~24 ms for ~3,000 of them.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    close(this.#fd, () => {});
  }
}
