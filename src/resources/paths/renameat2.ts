// renameat2(2) with RENAME_NOREPLACE: moves an entry to a name that must not exist, in one
// atomic step. The alternative, link(2) + unlink(2), leaves both names on one inode when the
// process dies between the two calls (a torn rename), and cannot move a directory safely.
//
// Node has no binding for renameat2 (libc.ts calls it). When it is not available (another
// libc, an old kernel, a file system without RENAME_NOREPLACE) callers fall back to their
// previous, non-atomic way and say so in the docs.
import { errnoError, lastErrno, libcFunction } from './libc.js';

const RENAME_NOREPLACE = 1;

type Renameat2 = (olddirfd: number, oldpath: string, newdirfd: number, newpath: string, flags: number) => number;
const SIGNATURE = 'int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags)';

/**
 * `moved`: done atomically. `unsupported`: renameat2 is not available for this call (no binding,
 * ENOSYS, or EINVAL from a file system without the flag): fall back. Any other failure throws an
 * Error with the errno name in `code`, as node:fs does (EEXIST when the target exists).
 */
export function renameNoReplace(fromDirfd: number, fromName: string, toDirfd: number, toName: string): 'moved' | 'unsupported' {
  const renameat2 = libcFunction<Renameat2>(SIGNATURE);
  if (!renameat2) return 'unsupported';
  if (renameat2(fromDirfd, fromName, toDirfd, toName, RENAME_NOREPLACE) === 0) return 'moved';
  const e = lastErrno();
  if (e.code === 'ENOSYS' || e.code === 'EINVAL') return 'unsupported';
  throw errnoError('renameat2', `${fromName} -> ${toName}`, e);
}

/** Whether atomic no-replace renames are available in this process (for doctor and tests). */
export function hasRenameNoReplace(): boolean {
  return libcFunction<Renameat2>(SIGNATURE) !== null;
}
