// Reads candidate files beneath the root without following links: each directory is opened
// once, from its parent's fd, and each file through its directory, all with O_NOFOLLOW (the
// same walk as Workspace.openLeaf, shared between the files of one search). A file that
// turned into a link (or vanished) since it was listed reads as absent. Every engine reads
// through here (ripgrep gets the descriptors opened here, never a path), and one search sees
// one inode per path: a path met again with another device/inode (replaced meanwhile) reads
// as absent, so a result, its binary check and its context lines come from the same file.
import { closeSync, constants, fstatSync, lstatSync, readlinkSync } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import type { Workspace } from '../../resources/index.js';
import { procPath, readAt } from '../../resources/index.js';
import { openAt } from './openat.js';

// O_NONBLOCK: a name swapped for a FIFO must not block the open (it has no effect on a file).
const { O_RDONLY, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = constants;
/** Why an open found no file here (gone, a link, not a directory, no access): not a failure of the search. */
const ABSENT = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EACCES', 'EPERM', 'ENXIO', 'EISDIR']);

function errnoOf(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

/** Out of descriptors (or memory) is the machine's failure, not a missing file: it ends the search. */
function absentOrThrow(e: unknown, path: string): null {
  const code = errnoOf(e);
  if (code !== undefined && ABSENT.has(code)) return null;
  throw new ToolgateError('execution_failed', `fs.search could not open ${path}: ${code ?? String(e)}`, { path, errno: code ?? null }, { cause: e });
}
/** Like git: a NUL byte in the first 8000 bytes makes a file binary. */
export const BINARY_SNIFF_BYTES = 8000;
/** `@generated` within the first bytes marks a generated file. */
export const GENERATED_MARK_BYTES = 1024;
export const GENERATED_MARK = Buffer.from('@generated');
const MAX_OPEN_DIRS = 256;

export class FileReader {
  readonly #ws: Workspace;
  readonly #dirs = new Map<string, number | null>();
  /** `dev:ino` of each file opened by this search. */
  readonly #identities = new Map<string, string>();
  /** The stamp (see stamp()) of each file when this search first opened it, from that open's fstat. */
  readonly #openedStamps = new Map<string, string>();
  /** The size of each file when this search first opened it. */
  readonly #openedSizes = new Map<string, number>();

  constructor(ws: Workspace) {
    this.#ws = ws;
  }

  /**
   * The directory's fd, opened from its parent's fd one component at a time with O_NOFOLLOW
   * (so no link is ever traversed), and checked to lie beneath the root once per directory.
   */
  #dirFd(dir: string): number | null {
    if (dir === '') return this.#ws.rootFd;
    const known = this.#dirs.get(dir);
    if (known !== undefined) return known;
    // Files come in path order, so directories are needed in runs: bound what is held open.
    if (this.#dirs.size >= MAX_OPEN_DIRS) this.close();
    const slash = dir.lastIndexOf('/');
    const parent = this.#dirFd(slash === -1 ? '' : dir.slice(0, slash));
    let fd: number | null = null;
    if (parent !== null) {
      let opened: number | null = null;
      try {
        opened = openAt(parent, dir.slice(slash + 1), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        // Defence in depth, as in Workspace.openLeaf: the directory was not moved out meanwhile.
        if (readlinkSync(`/proc/self/fd/${opened}`).startsWith(this.#ws.root + '/')) {
          fd = opened;
          opened = null;
        }
      } catch (e) {
        fd = absentOrThrow(e, dir);
      } finally {
        if (opened !== null) closeSync(opened);
      }
    }
    this.#dirs.set(dir, fd);
    return fd;
  }

  /** The open directory holding `path` and the file's name in it (null when unreachable). */
  locate(path: string): { dirfd: number; name: string } | null {
    const slash = path.lastIndexOf('/');
    const dirfd = this.#dirFd(slash === -1 ? '' : path.slice(0, slash));
    return dirfd === null ? null : { dirfd, name: path.slice(slash + 1) };
  }

  /**
   * Opens a regular file, or returns null when it is gone, a link, not regular, or not the
   * inode this search met at that path before. The caller closes the fd.
   */
  open(path: string): number | null {
    const at = this.locate(path);
    if (at === null) return null;
    let fd: number;
    try {
      fd = openAt(at.dirfd, at.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (e) {
      return absentOrThrow(e, path);
    }
    const st = fstatSync(fd);
    const identity = `${st.dev}:${st.ino}`;
    const seen = this.#identities.get(path);
    if (!st.isFile() || (seen !== undefined && seen !== identity)) {
      closeSync(fd);
      return null;
    }
    if (seen === undefined) {
      this.#identities.set(path, identity);
      this.#openedStamps.set(path, `${identity}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`);
      this.#openedSizes.set(path, st.size);
    }
    return fd;
  }

  /** The size of `path` when this search first opened it (null before). */
  openedSize(path: string): number | null {
    return this.#openedSizes.get(path) ?? null;
  }

  /**
   * The stamp of `path` as this search first opened it (the inode an engine searched), without
   * another lstat; null when this search has not opened it.
   */
  openedStamp(path: string): string | null {
    return this.#openedStamps.get(path) ?? null;
  }

  /**
   * The `dev:ino:size:mtime:ctime` of a regular file at `path` now, through its directory's fd;
   * null when it is not a regular file or not the inode this search opened at that path.
   */
  stamp(path: string): string | null {
    const at = this.locate(path);
    if (at === null) return null;
    try {
      const st = lstatSync(procPath(at.dirfd, at.name));
      const identity = `${st.dev}:${st.ino}`;
      const seen = this.#identities.get(path);
      if (!st.isFile() || (seen !== undefined && seen !== identity)) return null;
      return `${identity}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch (e) {
      return absentOrThrow(e, path);
    }
  }

  /** Whether `path` is a regular file beneath the root now (reached without following a link). */
  isRegularFile(path: string): boolean {
    return this.stamp(path) !== null;
  }

  /** The first `bytes` of a file, or null when it cannot be opened safely. */
  head(path: string, bytes = BINARY_SNIFF_BYTES): Buffer | null {
    const fd = this.open(path);
    if (fd === null) return null;
    try {
      return readAt(fd, 0, bytes);
    } finally {
      closeSync(fd);
    }
  }

  /** The whole file, or null when it cannot be opened safely or is larger than `limit`. */
  read(path: string, limit: number): Buffer | null {
    const fd = this.open(path);
    if (fd === null) return null;
    try {
      const size = fstatSync(fd).size;
      if (size > limit) return null;
      return readAt(fd, 0, size);
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    for (const fd of this.#dirs.values()) if (fd !== null && fd !== this.#ws.rootFd) closeSync(fd);
    this.#dirs.clear();
  }
}
