import { closeSync, constants, fstatSync, openSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { createHash } from 'node:crypto';
import { StartupError, ToolgateError } from '../../protocol/index.js';
import { lexicalComponents } from './lexical.js';
import { PathClassifier } from './classify.js';
import { openParentBeneath, walkBeneath, type Identity, type ResolvedPath, type WalkOptions } from './open-beneath.js';
import { openRegular } from './regular-file.js';

const { O_RDONLY, O_DIRECTORY } = constants;

/**
 * Why `dir` cannot be a workspace, as the start-up error the CLI prints for it (`invalid_workspace`,
 * `{ workspace, cause_code }`), so a library caller gets the same code and data, not a raw errno.
 */
function workspaceFault(dir: string, e: unknown): StartupError<'invalid_workspace'> {
  const code = (e as NodeJS.ErrnoException | undefined)?.code ?? null;
  let what = `cannot be opened (${(e as Error).message}); fix: give the project's directory as the workspace`;
  if (code === 'ENOENT') what = "does not exist; fix: give the project's directory as the workspace";
  else if (code === 'ENOTDIR') what = `${isFile(dir) ? 'is a file' : 'is not a directory (a component of its path is a file)'}; fix: give the project's directory as the workspace`;
  else if (code === 'EACCES' || code === 'EPERM') what = 'cannot be read by this user; fix: give a directory this user can read and enter, or run as its owner';
  return new StartupError('invalid_workspace', `the workspace ${dir} ${what}`, { workspace: dir, cause_code: code }, { cause: e });
}

function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export interface OpenedLeaf {
  readonly resolved: ResolvedPath;
  /** Open fd of the parent directory; close it with `release()`. */
  readonly dirfd: number;
  release(): void;
}

/**
 * The workspace root, held open for the runtime's life. Every path a tool touches goes through
 * `resolve` (normalize stage) and again through `openLeaf` / `openFile` at the point of effect.
 */
export class Workspace {
  readonly root: string;
  /** Stable id of the workspace: digest of its real path. */
  readonly id: string;
  readonly #rootFd: number;
  readonly #rootIdentity: Identity;
  readonly #spellings: string[];
  /** Secret and protected path classification for this workspace. */
  readonly classifier: PathClassifier;
  #closed = false;

  private constructor(root: string, given: string, rootFd: number, classifier: PathClassifier) {
    this.root = root;
    this.classifier = classifier;
    this.#rootFd = rootFd;
    const st = fstatSync(rootFd);
    this.#rootIdentity = { dev: st.dev, ino: st.ino };
    this.#spellings = [...new Set([root, given.replace(/\/+$/, '') || '/'])];
    this.id = createHash('sha256').update(root).digest('hex').slice(0, 16);
  }

  /** Throws `invalid_workspace` (the CLI's start-up error, same data) when `dir` cannot be the root. */
  static open(dir: string, opts: { secretPatterns?: readonly string[] } = {}): Workspace {
    let root: string;
    let fd: number;
    try {
      root = realpathSync(dir);
      fd = openSync(root, O_RDONLY | O_DIRECTORY);
    } catch (e) {
      throw workspaceFault(dir, e);
    }
    return new Workspace(root, dir, fd, new PathClassifier(opts.secretPatterns));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#rootFd);
  }

  get rootFd(): number {
    return this.#rootFd;
  }

  /** Lexical then physical normalization; links inside the root are resolved to their target. */
  resolve(path: unknown, opts: Partial<WalkOptions> = {}): ResolvedPath {
    const leaf = this.openLeaf(path, { links: 'inside', allowMissingLeaf: true, ...opts });
    leaf.release();
    return leaf.resolved;
  }

  /**
   * Opens the parent directory of `path` beneath the root and describes the leaf. With
   * `links: 'never'` (the point of effect, on an already canonical path) any link is refused.
   */
  openLeaf(path: unknown, opts: WalkOptions): OpenedLeaf {
    const components = lexicalComponents(path, this.#spellings);
    const { resolved, parentFd } = walkBeneath(this.#rootFd, typeof path === 'string' ? path : '', components, opts, this.#rootIdentity);
    const owned = parentFd !== this.#rootFd;
    if (owned) this.#assertStillBeneath(parentFd, resolved.path);
    let released = false;
    return {
      resolved,
      dirfd: parentFd,
      release: () => {
        if (owned && !released) closeSync(parentFd);
        released = true;
      },
    };
  }

  /**
   * Opens a regular file at a canonical path for reading, refusing every link on the way, and
   * checks that it is the object normalization saw (device and inode). Returns the open fd and
   * its fstat (the caller reads size and times from it instead of asking the kernel again).
   */
  openFileForRead(resolved: ResolvedPath): { fd: number; st: Stats } {
    const name = resolved.components[resolved.components.length - 1];
    if (name === undefined) throw new ToolgateError('invalid_resource', 'the workspace root is a directory, not a file', { path: '.' });
    const dirfd = openParentBeneath(this.#rootFd, resolved.path, resolved.components);
    const owned = dirfd !== this.#rootFd;
    try {
      if (owned && !this.#stillBeneath(dirfd)) throw this.#movedOut(resolved.path);
      let opened: { fd: number; st: Stats };
      try {
        // Never waits (a FIFO swapped in), and refuses anything but a regular file before a read.
        opened = openRegular(dirfd, name, resolved.path);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') throw new ToolgateError('path_escape', `refusing to follow a symbolic link: ${resolved.path}`, { path: resolved.path });
        if (code === 'ENOENT') throw new ToolgateError('not_found', `no such file: ${resolved.path}`, { path: resolved.path });
        if (code === 'ENXIO') throw new ToolgateError('invalid_resource', `${resolved.path} is a socket or device, not a regular file`, { path: resolved.path, kind: 'unknown', reason: 'special_file' });
        throw e;
      }
      const { fd, st } = opened;
      if (resolved.identity && (st.dev !== resolved.identity.dev || st.ino !== resolved.identity.ino)) {
        closeSync(fd);
        throw new ToolgateError('precondition_failed', `${resolved.path} changed between authorization and use`, { path: resolved.path, reason: 'identity_changed' });
      }
      return opened;
    } finally {
      if (owned) closeSync(dirfd);
    }
  }

  /** Defence in depth: an open directory must still lie beneath the root (not moved out). */
  #assertStillBeneath(dirfd: number, path: string): void {
    if (!this.#stillBeneath(dirfd)) {
      closeSync(dirfd);
      throw this.#movedOut(path);
    }
  }

  #stillBeneath(dirfd: number): boolean {
    const where = readlinkSync(`/proc/self/fd/${dirfd}`);
    return where === this.root || where.startsWith(this.root + '/');
  }

  #movedOut(path: string): ToolgateError {
    return new ToolgateError('path_escape', `a directory on the way to ${path} moved outside the workspace`, { path });
  }
}
