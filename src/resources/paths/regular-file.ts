// Opening a file the agent may have replaced: a FIFO opened for reading blocks until a writer
// comes (and with it the whole server, since the open is synchronous), and a device or socket
// is not content. Every open of an existing file for reading goes through `openRegular`:
// O_NONBLOCK so the open itself never waits, then fstat on the open fd before any read.
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import { procPath } from './open-beneath.js';

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY } = constants;
/** O_NONBLOCK changes nothing for a regular file; for a FIFO it makes open return at once. */
export const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY;

export type SpecialKind = 'fifo' | 'socket' | 'char_device' | 'block_device' | 'directory' | 'symlink' | 'unknown';

/** What a non-regular entry is, for the typed refusal. */
export function specialKindOf(st: Stats): SpecialKind {
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return 'char_device';
  if (st.isBlockDevice()) return 'block_device';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'unknown';
}

/** The typed refusal of a special file: `invalid_resource` with `reason: special_file` and its kind. */
export function specialFileError(path: string, st: Stats): ToolgateError {
  const kind = specialKindOf(st);
  if (kind === 'directory') return new ToolgateError('invalid_resource', `${path} is a directory`, { path, kind: 'directory' });
  return new ToolgateError('invalid_resource', `${path} is a ${kind.replace('_', ' ')}, not a regular file; special files are never opened for reading`, { path, kind, reason: 'special_file' });
}

/**
 * Opens `name` in the open directory `dirfd` for reading, without following a link and without
 * waiting, and returns the fd with its fstat only when it is a regular file. Errno failures of
 * the open itself are left to the caller (each maps ENOENT / ELOOP its own way).
 */
export function openRegular(dirfd: number, name: string, path: string): { fd: number; st: Stats } {
  const fd = openSync(procPath(dirfd, name), READ_FLAGS);
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw specialFileError(path, st);
  }
  return { fd, st };
}
