// Directory trees walked, removed and rebuilt through open directory fds only: every entry is
// reached as /proc/self/fd/<dirfd>/<name> with O_NOFOLLOW, so a directory swapped for a link
// mid-walk is never entered (the `rm -rf` race).
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, rmdirSync, symlinkSync, unlinkSync, writeSync, fchmodSync } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import { procPath } from './open-beneath.js';
import { openRegular } from './regular-file.js';
import { readAt } from './read-at.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_WRONLY, O_CREAT, O_EXCL } = constants;

export interface TreeEntry {
  /** Relative to the tree's top ('' for the top itself). */
  readonly path: string;
  readonly kind: 'file' | 'directory' | 'symlink';
  readonly mode: number;
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly target?: string;
  /** The bytes of a regular file, when the walk was asked to read them. */
  readonly data?: Buffer;
}

export interface TreeLimits {
  readonly maxEntries: number;
  readonly maxBytes: number;
}

function limitError(what: string, limits: TreeLimits, entries: number, bytes: number): ToolgateError {
  return new ToolgateError('limit_exceeded', `the tree is larger than the limit (${what})`, { entries, bytes, max_entries: limits.maxEntries, max_bytes: limits.maxBytes });
}

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

/**
 * Lists the entry `name` in `dirfd` and, for a directory, everything beneath it (parents first).
 * An entry that vanishes or turns into a link while it is listed is `precondition_failed`.
 */
export function walkTree(dirfd: number, name: string, limits: TreeLimits, read = false): TreeEntry[] {
  try {
    return walkTreeUnchecked(dirfd, name, limits, read);
  } catch (e) {
    const code = errno(e);
    if (!ToolgateError.isInstance(e) && (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EINVAL' || code === 'ENXIO')) {
      throw new ToolgateError('precondition_failed', `${name} changed while it was listed`, { path: name, reason: 'changed_since_check', errno: code }, { cause: e });
    }
    throw e;
  }
}

function walkTreeUnchecked(dirfd: number, name: string, limits: TreeLimits, read: boolean): TreeEntry[] {
  const out: TreeEntry[] = [];
  let bytes = 0;
  const visit = (parentFd: number, entryName: string, rel: string): void => {
    const st = lstatSync(procPath(parentFd, entryName));
    if (out.length >= limits.maxEntries) throw limitError('entries', limits, out.length + 1, bytes);
    const base = { path: rel, mode: st.mode & 0o7777, dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    if (st.isSymbolicLink()) {
      out.push({ ...base, kind: 'symlink', target: readlinkSync(procPath(parentFd, entryName)) });
      return;
    }
    if (st.isFile()) {
      bytes += st.size;
      if (bytes > limits.maxBytes) throw limitError('bytes', limits, out.length + 1, bytes);
      out.push(read ? { ...base, kind: 'file', data: readEntry(parentFd, entryName, base, rel) } : { ...base, kind: 'file' });
      return;
    }
    if (!st.isDirectory()) throw new ToolgateError('unsupported', `${rel || entryName} is neither a file, a directory nor a link`, { path: rel });
    out.push({ ...base, kind: 'directory' });
    const fd = openSync(procPath(parentFd, entryName), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      const dst = fstatSync(fd);
      if (dst.ino !== st.ino || dst.dev !== st.dev) throw new ToolgateError('precondition_failed', `${rel} changed while it was listed`, { path: rel, reason: 'changed_since_check' });
      for (const child of readdirSync(`/proc/self/fd/${fd}`).sort()) visit(fd, child, rel ? `${rel}/${child}` : child);
    } finally {
      closeSync(fd);
    }
  };
  visit(dirfd, name, '');
  return out;
}

/** Reads a regular file through its parent fd, checking it is the inode that was listed. */
function readEntry(parentFd: number, name: string, entry: { dev: number; ino: number; size: number }, rel: string): Buffer {
  // Non-blocking and regular-only: an entry swapped for a FIFO since the listing must not hang the call.
  const { fd, st } = openRegular(parentFd, name, rel);
  try {
    if (st.ino !== entry.ino || st.dev !== entry.dev || st.size !== entry.size) throw new ToolgateError('precondition_failed', `${rel} changed while it was read`, { path: rel, reason: 'changed_since_check' });
    return readAt(fd, 0, st.size);
  } finally {
    closeSync(fd);
  }
}

/** Removes `name` in `dirfd` and everything beneath it, entering directories only by fd. Returns entries removed. */
export function removeTree(dirfd: number, name: string): number {
  const st = lstatSync(procPath(dirfd, name));
  if (!st.isDirectory()) {
    unlinkSync(procPath(dirfd, name));
    return 1;
  }
  let n = 0;
  let fd: number;
  try {
    fd = openSync(procPath(dirfd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    // Turned into a link (or a file) since the lstat: remove the entry itself, never follow it.
    if (errno(e) !== 'ELOOP' && errno(e) !== 'ENOTDIR') throw e;
    unlinkSync(procPath(dirfd, name));
    return 1;
  }
  try {
    for (const child of readdirSync(`/proc/self/fd/${fd}`)) n += removeTree(fd, child);
  } finally {
    closeSync(fd);
  }
  rmdirSync(procPath(dirfd, name));
  return n + 1;
}

export interface RebuildEntry {
  readonly path: string;
  readonly kind: 'file' | 'directory' | 'symlink';
  readonly mode: number;
  readonly target?: string;
  readonly data?: Uint8Array;
}

/**
 * Builds a tree under the new name `name` in `dirfd` (which must not exist). Entries come
 * parents first; each is created inside its parent's open fd, never through a path of
 * several components. Directory modes are set last, so a read-only directory is filled first.
 */
export function buildTree(dirfd: number, name: string, entries: readonly RebuildEntry[]): void {
  const children = new Map<string, RebuildEntry[]>();
  for (const e of entries) {
    if (e.path === '') continue;
    const cut = e.path.lastIndexOf('/');
    const parent = cut < 0 ? '' : e.path.slice(0, cut);
    (children.get(parent) ?? children.set(parent, []).get(parent) ?? []).push(e);
  }
  const make = (parentFd: number, entryName: string, e: RebuildEntry): void => {
    const at = procPath(parentFd, entryName);
    if (e.kind === 'symlink') return symlinkSync(e.target ?? '', at);
    if (e.kind === 'file') {
      const fd = openSync(at, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        const data = e.data ?? new Uint8Array();
        let off = 0;
        while (off < data.length) off += writeSync(fd, data, off, data.length - off);
        fchmodSync(fd, e.mode & 0o777); // never set-id or sticky bits
      } finally {
        closeSync(fd);
      }
      return;
    }
    mkdirSync(at, 0o700);
    const fd = openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      for (const c of children.get(e.path) ?? []) make(fd, c.path.slice(c.path.lastIndexOf('/') + 1), c);
      fchmodSync(fd, e.mode & 0o777);
    } finally {
      closeSync(fd);
    }
  };
  const top = entries.find((e) => e.path === '');
  if (!top) throw new ToolgateError('internal_error', 'a tree manifest without its top entry', {});
  make(dirfd, name, top);
}
