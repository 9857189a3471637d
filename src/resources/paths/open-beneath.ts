import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import { joinComponents } from './lexical.js';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
export const MAX_LINK_HOPS = 40;

export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';

export interface Identity {
  readonly dev: number;
  readonly ino: number;
}

/** A path resolved beneath the root: canonical components, and what is there now. */
export interface ResolvedPath {
  /** Canonical workspace-relative path (`.` for the root itself), links inside the root resolved. */
  readonly path: string;
  readonly components: readonly string[];
  readonly exists: boolean;
  readonly kind: EntryKind | null;
  readonly identity: Identity | null;
  /** Identity of the parent directory, which exists whenever this resolves. */
  readonly parent: Identity;
}

export function procPath(dirfd: number, name: string): string {
  return `/proc/self/fd/${dirfd}/${name}`;
}

export function kindOf(st: Stats): EntryKind {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  return 'other';
}

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

export interface WalkOptions {
  /** `inside`: links whose target stays beneath the root are followed; `never`: any link is refused. */
  readonly links: 'inside' | 'never';
  /** The last component may be missing (for create). */
  readonly allowMissingLeaf: boolean;
  /** Do not follow a link in the last component (for delete, rename, lstat-like use). */
  readonly leafNoFollow?: boolean;
}

/**
 * Walks `components` from the open root directory one component at a time, opening each
 * directory through `/proc/self/fd/<dirfd>/<name>` with O_NOFOLLOW. A link is never followed
 * by the kernel: its target is read and re-resolved lexically beneath the root, and refused
 * with `path_escape` when it would leave it. Returns the resolution and, when `keepParent`,
 * an open fd of the parent directory that the caller must close.
 */
export function walkBeneath(
  rootFd: number,
  requested: string,
  initial: readonly string[],
  opts: WalkOptions,
  /** The root's identity, when the caller holds it: an open fd's inode never changes, so it need not be asked again. */
  rootIdentity?: Identity,
): { resolved: ResolvedPath; parentFd: number } {
  const identityOf = (fd: number): Identity => {
    if (fd === rootFd && rootIdentity !== undefined) return rootIdentity;
    const st = fstatSync(fd);
    return { dev: st.dev, ino: st.ino };
  };
  let pending = [...initial];
  let hops = 0;
  restart: for (;;) {
    const done: string[] = [];
    let dirfd = rootFd;
    // Closes the current directory once: it is called before `continue restart` and again by
    // `finally`, so it must forget the fd (a second close could hit an fd reused meanwhile).
    const closeDir = (): void => {
      if (dirfd !== rootFd) closeSync(dirfd);
      dirfd = rootFd;
    };
    try {
      for (let i = 0; i < pending.length; i++) {
        const name = pending[i] as string;
        const isLeaf = i === pending.length - 1;
        let st: Stats;
        try {
          st = lstatSync(procPath(dirfd, name));
        } catch (e) {
          if (errno(e) === 'ENOENT' && isLeaf && opts.allowMissingLeaf) {
            const resolved: ResolvedPath = {
              path: joinComponents([...done, name]),
              components: [...done, name],
              exists: false,
              kind: null,
              identity: null,
              parent: identityOf(dirfd),
            };
            const fd = dirfd;
            dirfd = rootFd; // ownership moves to the caller
            return { resolved, parentFd: fd };
          }
          if (errno(e) === 'ENOENT') throw new ToolgateError('not_found', `no such file or directory: ${requested}`, { path: requested, missing: joinComponents([...done, name]) });
          if (errno(e) === 'ENOTDIR') throw new ToolgateError('not_found', `not a directory on the way to ${requested}`, { path: requested, at: joinComponents(done) });
          throw e;
        }
        if (st.isSymbolicLink() && !(isLeaf && opts.leafNoFollow)) {
          if (opts.links === 'never') {
            throw new ToolgateError('path_escape', `refusing to follow a symbolic link: ${joinComponents([...done, name])}`, { path: requested, link: joinComponents([...done, name]) });
          }
          if (++hops > MAX_LINK_HOPS) throw new ToolgateError('invalid_resource', 'too many levels of symbolic links', { path: requested });
          let target: string;
          try {
            target = readlinkSync(procPath(dirfd, name));
          } catch (e) {
            // No longer a link (swapped back) or gone: walk again from the root.
            if (errno(e) === 'EINVAL' || errno(e) === 'ENOENT') {
              closeDir();
              if (++hops > MAX_LINK_HOPS) throw new ToolgateError('invalid_resource', 'path keeps changing under resolution', { path: requested });
              continue restart;
            }
            throw e;
          }
          pending = [...relinkTarget(requested, done, target), ...pending.slice(i + 1)];
          closeDir();
          continue restart;
        }
        if (isLeaf) {
          const parent = identityOf(dirfd);
          const fd = dirfd;
          dirfd = rootFd;
          return {
            resolved: {
              path: joinComponents([...done, name]),
              components: [...done, name],
              exists: true,
              kind: kindOf(st),
              identity: { dev: st.dev, ino: st.ino },
              parent,
            },
            parentFd: fd,
          };
        }
        if (!st.isDirectory()) throw new ToolgateError('not_found', `not a directory on the way to ${requested}`, { path: requested, at: joinComponents([...done, name]) });
        let next: number;
        try {
          next = openSync(procPath(dirfd, name), DIR_FLAGS);
        } catch (e) {
          // Swapped between lstat and open (now a link or gone): walk again from the root.
          if (errno(e) === 'ELOOP' || errno(e) === 'ENOTDIR' || errno(e) === 'ENOENT') {
            closeDir();
            if (++hops > MAX_LINK_HOPS) throw new ToolgateError('invalid_resource', 'path keeps changing under resolution', { path: requested });
            continue restart;
          }
          throw e;
        }
        closeDir();
        dirfd = next;
        done.push(name);
      }
      // No components: the root itself.
      const root = identityOf(rootFd);
      return {
        resolved: { path: '.', components: [], exists: true, kind: 'directory', identity: root, parent: root },
        parentFd: rootFd,
      };
    } finally {
      closeDir();
    }
  }
}

/**
 * Opens the parent directory of a canonical path at the point of effect, refusing every link on
 * the way: each directory is opened with O_NOFOLLOW | O_DIRECTORY, so a link or a non-directory
 * fails the open itself (ELOOP, ENOTDIR) and no lstat is needed before it. The leaf is left to
 * the caller, who opens it with O_NOFOLLOW and checks its identity on the open fd: `walkBeneath`'s
 * lstat of the leaf and fstat of the parent would only repeat what that open and fstat prove.
 * Returns `rootFd` itself for a path directly beneath the root (the caller must not close it).
 */
export function openParentBeneath(rootFd: number, requested: string, components: readonly string[]): number {
  let dirfd = rootFd;
  try {
    for (let i = 0; i < components.length - 1; i++) {
      const name = components[i] as string;
      let next: number;
      try {
        next = openSync(procPath(dirfd, name), DIR_FLAGS);
      } catch (e) {
        const at = joinComponents(components.slice(0, i + 1));
        if (errno(e) === 'ELOOP') throw new ToolgateError('path_escape', `refusing to follow a symbolic link: ${at}`, { path: requested, link: at });
        if (errno(e) === 'ENOENT') throw new ToolgateError('not_found', `no such file or directory: ${requested}`, { path: requested, missing: at });
        if (errno(e) === 'ENOTDIR') throw new ToolgateError('not_found', `not a directory on the way to ${requested}`, { path: requested, at });
        throw e;
      }
      if (dirfd !== rootFd) closeSync(dirfd);
      dirfd = next;
    }
    const parent = dirfd;
    dirfd = rootFd; // ownership moves to the caller
    return parent;
  } finally {
    if (dirfd !== rootFd) closeSync(dirfd);
  }
}

/** Resolves a link target found after `done` lexically; refuses targets that leave the root. */
function relinkTarget(requested: string, done: readonly string[], target: string): string[] {
  if (target.startsWith('/')) {
    throw new ToolgateError('path_escape', 'symbolic link with an absolute target', { path: requested, link: joinComponents(done), target });
  }
  const out = [...done];
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) throw new ToolgateError('path_escape', 'symbolic link leaves the workspace root', { path: requested, link: joinComponents(done), target });
      out.pop();
    } else out.push(part);
  }
  return out;
}
