// Directory trees walked, removed and rebuilt through open directory fds only: every entry is
// reached as /proc/self/fd/<dirfd>/<name> with O_NOFOLLOW, so a directory swapped for a link
// mid-walk is never entered (the `rm -rf` race).
//
// Each entry is a few synchronous system calls, except those that make an inode (below); a
// TreePacer (pacer.ts) lets the event loop run between slices of the work, and a large file is
// read a slice at a time.
import { closeSync, constants, fstatSync, lstatSync, mkdir, open, openSync, readdirSync, readlinkSync, rmdirSync, symlink, unlinkSync, writeSync, fchmodSync } from 'node:fs';
import { promisify } from 'node:util';
import { ToolgateError } from '../../protocol/index.js';
import { procPath } from './open-beneath.js';
import { openRegular } from './regular-file.js';
import { readInto } from './read-at.js';
import { TreePacer } from './pacer.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_WRONLY, O_CREAT, O_EXCL } = constants;

// The calls that make a new inode run on the thread pool. Making one can take long in the kernel:
// ext4 looks for a free inode past those deleted in the last minutes (find_inode_bit,
// recently_deleted), and fs.undo runs right after fs.delete freed them. One open(O_CREAT) of
// fs.undo of a 20,000-file tree took 243 ms here, and every other call on the server waited.
const openAsync = promisify(open);
const mkdirAsync = promisify(mkdir);
const symlinkAsync = promisify(symlink);

/**
 * Files and links of one directory made at a time, so that the thread pool's hop (~50 µs here)
 * is shared: 5,000 small files made one at a time on the pool took 4.8x the synchronous time on
 * tmpfs, 8 at a time 1.5x (fs.undo of the 20,000-file tree there: 282 → 322-333 ms).
 * Directories are made one after another (each holds a descriptor while it is filled).
 */
export const CREATE_WINDOW = 8;

/** Waits for every promise, then throws the first failure: nothing is left running for the caller's clean-up to miss. */
async function allDone(work: readonly Promise<void>[]): Promise<void> {
  const failed = (await Promise.allSettled(work)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

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
export async function walkTree(dirfd: number, name: string, limits: TreeLimits, read = false, pacer = new TreePacer()): Promise<TreeEntry[]> {
  try {
    return await walkTreeUnchecked(dirfd, name, limits, read, pacer);
  } catch (e) {
    const code = errno(e);
    if (!ToolgateError.isInstance(e) && (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'EINVAL' || code === 'ENXIO')) {
      throw new ToolgateError('precondition_failed', `${name} changed while it was listed`, { path: name, reason: 'changed_since_check', errno: code }, { cause: e });
    }
    throw e;
  }
}

async function walkTreeUnchecked(dirfd: number, name: string, limits: TreeLimits, read: boolean, pacer: TreePacer): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [];
  let bytes = 0;
  const visit = async (parentFd: number, entryName: string, rel: string): Promise<void> => {
    if (pacer.due()) await pacer.pause();
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
      out.push(read ? { ...base, kind: 'file', data: await readEntry(parentFd, entryName, base, rel, pacer) } : { ...base, kind: 'file' });
      return;
    }
    if (!st.isDirectory()) throw new ToolgateError('unsupported', `${rel || entryName} is neither a file, a directory nor a link`, { path: rel });
    out.push({ ...base, kind: 'directory' });
    const fd = openSync(procPath(parentFd, entryName), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      const dst = fstatSync(fd);
      if (dst.ino !== st.ino || dst.dev !== st.dev) throw new ToolgateError('precondition_failed', `${rel} changed while it was listed`, { path: rel, reason: 'changed_since_check' });
      for (const child of readdirSync(`/proc/self/fd/${fd}`).sort()) await visit(fd, child, rel ? `${rel}/${child}` : child);
    } finally {
      closeSync(fd);
    }
  };
  await visit(dirfd, name, '');
  return out;
}

/** Reads a regular file through its parent fd, checking it is the inode that was listed. */
async function readEntry(parentFd: number, name: string, entry: { dev: number; ino: number; size: number }, rel: string, pacer: TreePacer): Promise<Buffer> {
  // Non-blocking and regular-only: an entry swapped for a FIFO since the listing must not hang the call.
  const { fd, st } = openRegular(parentFd, name, rel);
  try {
    if (st.ino !== entry.ino || st.dev !== entry.dev || st.size !== entry.size) throw new ToolgateError('precondition_failed', `${rel} changed while it was read`, { path: rel, reason: 'changed_since_check' });
    const data = Buffer.allocUnsafe(st.size);
    let got = 0;
    await pacer.slices(st.size, (at, n) => {
      got += readInto(fd, data.subarray(at, at + n), at).length;
    });
    // Shorter than it was listed: the walk after the move compares sizes and puts the tree back.
    return got === st.size ? data : data.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** Removes `name` in `dirfd` and everything beneath it, entering directories only by fd. Returns entries removed. */
export async function removeTree(dirfd: number, name: string, pacer = new TreePacer()): Promise<number> {
  if (pacer.due()) await pacer.pause();
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
    for (const child of readdirSync(`/proc/self/fd/${fd}`)) n += await removeTree(fd, child, pacer);
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

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/**
 * Builds a tree under the new name `name` in `dirfd` (which must not exist). Entries come
 * parents first; each is created inside its parent's open fd, never through a path of
 * several components. Directory modes are set last, so a read-only directory is filled first.
 * Not synced: the caller syncs the tree once (syncFileSystem) before moving it into place.
 */
export async function buildTree(dirfd: number, name: string, entries: readonly RebuildEntry[], pacer = new TreePacer()): Promise<void> {
  const children = new Map<string, RebuildEntry[]>();
  for (const e of entries) {
    if (e.path === '') continue;
    const cut = e.path.lastIndexOf('/');
    const parent = cut < 0 ? '' : e.path.slice(0, cut);
    (children.get(parent) ?? children.set(parent, []).get(parent) ?? []).push(e);
  }
  const make = async (parentFd: number, entryName: string, e: RebuildEntry): Promise<void> => {
    if (pacer.due()) await pacer.pause();
    const at = procPath(parentFd, entryName);
    if (e.kind === 'symlink') return symlinkAsync(e.target ?? '', at);
    if (e.kind === 'file') {
      const fd = await openAsync(at, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
      try {
        const data = e.data ?? new Uint8Array();
        await pacer.slices(data.length, (at, n) => {
          for (let off = at; off < at + n; ) off += writeSync(fd, data, off, at + n - off);
        });
        fchmodSync(fd, e.mode & 0o777); // never set-id or sticky bits
      } finally {
        closeSync(fd);
      }
      return;
    }
    await mkdirAsync(at, 0o700);
    const fd = openSync(at, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    try {
      const inside = children.get(e.path) ?? [];
      const leaves = inside.filter((c) => c.kind !== 'directory');
      for (let i = 0; i < leaves.length; i += CREATE_WINDOW) await allDone(leaves.slice(i, i + CREATE_WINDOW).map((c) => make(fd, baseName(c.path), c)));
      for (const c of inside) if (c.kind === 'directory') await make(fd, baseName(c.path), c);
      fchmodSync(fd, e.mode & 0o777);
    } finally {
      closeSync(fd);
    }
  };
  const top = entries.find((e) => e.path === '');
  if (!top) throw new ToolgateError('internal_error', 'a tree manifest without its top entry', {});
  await make(dirfd, name, top);
}
