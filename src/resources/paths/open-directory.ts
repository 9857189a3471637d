import { closeSync, constants, fstatSync, mkdirSync, openSync, readlinkSync } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import { joinComponents } from './lexical.js';
import { procPath, type Identity } from './open-beneath.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

export interface OpenedDirectory {
  readonly fd: number;
  readonly identity: Identity;
  /** Canonical paths of the directories this call created, outermost first. */
  readonly created: readonly string[];
}

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

/**
 * Opens the directory at canonical `components` beneath the open root, one component at a time
 * with O_NOFOLLOW: a canonical path has no links, so any link met here is a refusal. With
 * `create`, missing directories are made (mode 0755) through the already-open parent.
 * The caller closes `fd` (unless it is `rootFd`).
 */
export function openDirectoryBeneath(
  rootFd: number,
  root: string,
  components: readonly string[],
  opts: { readonly create: boolean },
): OpenedDirectory {
  let fd = rootFd;
  const created: string[] = [];
  try {
    for (let i = 0; i < components.length; i++) {
      const name = components[i] as string;
      const here = joinComponents(components.slice(0, i + 1));
      let next: number;
      try {
        next = openSync(procPath(fd, name), DIR_FLAGS);
      } catch (e) {
        const code = errno(e);
        if (code === 'ENOENT' && opts.create) {
          try {
            mkdirSync(procPath(fd, name), 0o755);
            created.push(here);
          } catch (m) {
            if (errno(m) !== 'EEXIST') throw m;
          }
          next = openSync(procPath(fd, name), DIR_FLAGS);
        } else if (code === 'ELOOP') {
          throw new ToolgateError('path_escape', `refusing to follow a symbolic link: ${here}`, { path: here });
        } else if (code === 'ENOENT') {
          throw new ToolgateError('not_found', `no such directory: ${here}`, { path: here });
        } else if (code === 'ENOTDIR') {
          throw new ToolgateError('invalid_resource', `not a directory: ${here}`, { path: here });
        } else throw e;
      }
      if (fd !== rootFd) closeSync(fd);
      fd = next;
    }
    assertBeneath(fd, root, joinComponents(components));
    const st = fstatSync(fd);
    const out: OpenedDirectory = { fd, identity: { dev: st.dev, ino: st.ino }, created };
    fd = rootFd; // ownership moves to the caller
    return out;
  } finally {
    if (fd !== rootFd) closeSync(fd);
  }
}

/** An open directory must still lie beneath the root: it may have been moved out since it was opened. */
export function assertBeneath(dirfd: number, root: string, path: string): void {
  const where = readlinkSync(`/proc/self/fd/${dirfd}`);
  if (where !== root && !where.startsWith(root + '/')) {
    throw new ToolgateError('path_escape', `a directory on the way to ${path} moved outside the workspace`, { path });
  }
}
