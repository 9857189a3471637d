// The directories of a kept candidate list watched with inotify, so that checking the list before
// each search is one read() instead of an lstat per directory (issue 14).
//
// Why: the check lstat'ed every directory git's walk reads on every search; a tree of ~3,000
// directories cost ~10 ms of the event loop a page, on a core the ripgrep children need (the
// first page of a common literal is ~25 ms). Why inotify itself, read without blocking, and
// not fs.watch: resources/paths/inotify.ts.
//
// What counts as a change (anything else is read and ignored):
// - in a watched directory, an entry created, deleted or moved in or out (what moves its mtime);
// - any event on a `.gitignore` inside one, or on the directory itself (chmod, chown, deleted,
//   moved, unmounted: what moves its ctime or ends the watch);
// - a queue overflow: events may be lost, so the list is dropped.
// Paths are watched without following a final link; the caller adds a directory's watch before
// those of what it holds and compares each path with what it recorded after adding its watch
// (candidate-cache.ts), so a directory swapped for a link is seen either way. Only local file
// systems are watched; elsewhere, or without koffi or watches (ENOSPC), the caller keeps its lstats.
import { DIRECTORY_MASK, IN_CLOSE_WRITE, IN_DONT_FOLLOW, IN_ENTRIES, IN_MODIFY, IN_Q_OVERFLOW, IN_SELF, Inotify } from '../../resources/index.js';

const FILE_MASK = IN_MODIFY | IN_CLOSE_WRITE | IN_SELF | IN_DONT_FOLLOW;

export class TreeWatch {
  readonly #in: Inotify;
  /** Watch descriptor → a `.gitignore` file (true) or a directory (false). */
  readonly #files = new Map<number, boolean>();
  #changed = false;

  private constructor(watch: Inotify) {
    this.#in = watch;
  }

  /** A new inotify instance; null where inotify cannot be used (no koffi, no instance left). */
  static open(): TreeWatch | null {
    const watch = Inotify.open();
    return watch === null ? null : new TreeWatch(watch);
  }

  /** Watches the directory at `path` (not a link); false when no watch could be added (ENOSPC, gone). */
  addDirectory(path: string): boolean {
    return this.#add(path, DIRECTORY_MASK, false);
  }

  /** Watches the `.gitignore` at `path` (a link itself, not its target). */
  addIgnoreFile(path: string): boolean {
    return this.#add(path, FILE_MASK, true);
  }

  #add(path: string, mask: number, file: boolean): boolean {
    const wd = this.#in.add(path, mask);
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
    if (this.#changed || this.#in.closed) return true;
    let relevant = false;
    const read = this.#in.drain((wd, mask, name) => (relevant = this.#relevant(wd, mask, name)));
    if (relevant || !read) this.#changed = true;
    return this.#changed;
  }

  #relevant(wd: number, mask: number, name: string | null): boolean {
    if (mask & IN_Q_OVERFLOW) return true;
    const file = this.#files.get(wd);
    if (file === undefined) return true; // not ours: be safe
    if (file || name === null) return true; // a .gitignore, or the directory itself
    if (mask & IN_ENTRIES) return true;
    return name === '.gitignore';
  }

  /** Ends the inotify instance (and with it every watch), on the thread pool. */
  close(): void {
    this.#in.close();
  }
}
