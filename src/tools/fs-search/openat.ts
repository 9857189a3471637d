// openat(2) for the files a search hands to ripgrep. Node has no openat: the portable way to
// open a name inside an open directory is the path /proc/self/fd/<dirfd>/<name>, which the
// kernel resolves through procfs (a magic link) on every call: ~7–11 µs a file with its fstat
// here, against ~1.5 µs through openat, and a full scan opens every candidate (20,000 files).
// libc's openat through koffi (resources' libcFunction, as renameat2); without it, the /proc path.
// Both resolve only `name` inside the directory the descriptor holds, with the flags given.
import { openSync } from 'node:fs';
import { errnoError, lastErrno, libcFunction, procPath } from '../../resources/index.js';

type OpenAt = (dirfd: number, name: string, flags: number, mode: number) => number;
const SIGNATURE = 'int openat(int dirfd, const char *path, int flags, int mode)';

/** Node's own opens are close-on-exec; a raw openat must ask for it (no other child may inherit the fd). */
const O_CLOEXEC = 0o2000000;

/**
 * Opens `name` (one path component) in the directory `dirfd` with `flags`, close-on-exec.
 * Fails like node:fs (an Error with the errno name in `code`).
 */
export function openAt(dirfd: number, name: string, flags: number): number {
  const openat = libcFunction<OpenAt>(SIGNATURE);
  if (openat === null || name.includes('/')) return openSync(procPath(dirfd, name), flags);
  const fd = openat(dirfd, name, flags | O_CLOEXEC, 0);
  if (fd >= 0) return fd;
  throw errnoError('openat', name, lastErrno());
}

/** Whether openat goes through libc here (for tests). */
export function hasOpenAt(): boolean {
  return libcFunction<OpenAt>(SIGNATURE) !== null;
}
