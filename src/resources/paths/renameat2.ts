// renameat2(2) with RENAME_NOREPLACE: moves an entry to a name that must not exist, in one
// atomic step. The alternative, link(2) + unlink(2), leaves both names on one inode when the
// process dies between the two calls (a torn rename), and cannot move a directory safely.
//
// Node has no binding for renameat2. koffi (a maintained FFI with prebuilt binaries in its
// per-platform packages, no compiler and no install script needed) calls libc directly; a
// hand-written N-API addon would need a toolchain at install. When koffi or the syscall is not
// available (another libc, an old kernel, a file system without RENAME_NOREPLACE) callers fall
// back to their previous, non-atomic way and say so in the docs.
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import type * as Koffi from 'koffi';

const RENAME_NOREPLACE = 1;

type Renameat2 = (olddirfd: number, oldpath: string, newdirfd: number, newpath: string, flags: number) => number;

interface Binding {
  readonly renameat2: Renameat2;
  readonly errno: () => number;
}

// The loaded libc function is process-wide and stateless (like a required module), so it is
// loaded once; `null` records that it is unavailable here.
let binding: Binding | null | undefined;

function load(): Binding | null {
  if (binding !== undefined) return binding;
  try {
    const require = createRequire(import.meta.url);
    const koffi = require('koffi') as typeof Koffi;
    const libc = koffi.load('libc.so.6');
    const fn = libc.func('int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags)') as Renameat2;
    binding = { renameat2: fn, errno: () => koffi.errno() };
  } catch {
    binding = null;
  }
  return binding;
}

const errnoNames = new Map<number, string>(Object.entries(constants.errno).map(([name, n]) => [n, name]));

/**
 * `moved`: done atomically. `unsupported`: renameat2 is not available for this call (no binding,
 * ENOSYS, or EINVAL from a file system without the flag): fall back. Any other failure throws an
 * Error with the errno name in `code`, as node:fs does (EEXIST when the target exists).
 */
export function renameNoReplace(fromDirfd: number, fromName: string, toDirfd: number, toName: string): 'moved' | 'unsupported' {
  const b = load();
  if (!b) return 'unsupported';
  if (b.renameat2(fromDirfd, fromName, toDirfd, toName, RENAME_NOREPLACE) === 0) return 'moved';
  const n = b.errno();
  const code = errnoNames.get(n) ?? `E${n}`;
  if (code === 'ENOSYS' || code === 'EINVAL') return 'unsupported';
  const e = new Error(`renameat2 ${fromName} -> ${toName}: ${code}`) as NodeJS.ErrnoException;
  e.code = code;
  e.errno = -n;
  e.syscall = 'renameat2';
  throw e;
}

/** Whether atomic no-replace renames are available in this process (for doctor and tests). */
export function hasRenameNoReplace(): boolean {
  return load() !== null;
}
