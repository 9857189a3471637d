// Where a mutation lands: normalized once for authorization (canonical path, classification)
// and opened again at the point of effect along the canonical path with no link followed.
import { closeSync, fstatSync, readSync, type Stats } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import { leafStateOf, type FileBytes, type LeafState } from './atomic-replace.js';
import { joinComponents, lexicalComponents } from './lexical.js';
import { openDirectoryBeneath } from './open-directory.js';
import { type Identity } from './open-beneath.js';
import { TreePacer } from './pacer.js';
import { openRegular } from './regular-file.js';
import type { LinkedFile } from './secret-links.js';
import { isToolgateTempName } from './temp-name.js';
import type { Workspace } from './workspace.js';

export interface WriteTarget {
  /** Canonical workspace-relative path. */
  readonly path: string;
  readonly dir: readonly string[];
  readonly name: string;
  readonly exists: boolean;
  /** Parent identity at normalization; null when parents are still to be created. */
  readonly parent: Identity | null;
}

function isNotFound(e: unknown): boolean {
  return ToolgateError.isInstance(e) && e.code === 'not_found';
}

/**
 * `Workspace.resolve`, retried a few times when the walk meets an entry that changes under it
 * and fails with a raw errno; then a typed `precondition_failed`, never an untyped error.
 */
export function resolveStable(ws: Workspace, path: unknown, opts: { leafNoFollow?: boolean } = {}): ReturnType<Workspace['resolve']> {
  for (let attempt = 0; ; attempt++) {
    try {
      return ws.resolve(path, opts);
    } catch (e) {
      if (ToolgateError.isInstance(e)) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EINVAL' && code !== 'ENOENT' && code !== 'ENOTDIR') throw e;
      if (attempt >= 3) {
        throw new ToolgateError('precondition_failed', `the path ${String(path)} keeps changing while it is resolved`, { path: String(path), reason: 'path_changing' }, { cause: e });
      }
    }
  }
}

/** Refuses protected (`.git/`) and secret paths for writing, in requested and canonical form. */
export function assertWritable(ws: Workspace, canonical: string, requested: unknown): void {
  const forms = [canonical];
  try {
    forms.push(joinComponents(lexicalComponents(requested, [ws.root])));
  } catch {
    // another spelling of the root: the canonical form decides
  }
  for (const p of forms) {
    if (p.split('/').some(isToolgateTempName)) throw new ToolgateError('policy_denied', `${p} is a Toolgate temporary entry; writes are denied`, { path: p, reason: 'toolgate_temp_file' });
    const cls = ws.classifier.classify(p);
    if (cls === 'protected') throw new ToolgateError('policy_denied', `writes under .git/ are denied: ${p}`, { path: p, reason: 'protected_path' });
    if (cls === 'secret') throw new ToolgateError('policy_denied', `${p} is classified as a secret path; writes are denied`, { path: p, reason: 'secret_path' });
  }
}

/**
 * Normalizes a path to be written. Links inside the root on the way are resolved to their
 * canonical target; a link as the last component is refused (Toolgate never writes through a
 * link). With `createParents`, missing directories are allowed.
 */
export function resolveWriteTarget(ws: Workspace, requested: unknown, opts: { readonly createParents: boolean }): WriteTarget {
  let canonical: string[];
  let exists: boolean;
  let parent: Identity | null;
  try {
    const r = resolveStable(ws, requested, { leafNoFollow: true });
    if (r.kind === 'symlink') {
      throw new ToolgateError('invalid_resource', `${r.path} is a symbolic link; Toolgate never writes through a link`, { path: r.path, kind: 'symlink' });
    }
    if (r.kind === 'directory') throw new ToolgateError('invalid_resource', `${r.path} is a directory`, { path: r.path, kind: 'directory' });
    if (r.kind === 'other') throw new ToolgateError('invalid_resource', `${r.path} is not a regular file`, { path: r.path, kind: 'other' });
    canonical = [...r.components];
    exists = r.exists;
    parent = r.parent;
  } catch (e) {
    if (!isNotFound(e) || !opts.createParents) throw e;
    const parts = lexicalComponents(requested, [ws.root]);
    let k = parts.length - 1;
    let base: string[] = [];
    for (; k > 0; k--) {
      try {
        const r = resolveStable(ws, joinComponents(parts.slice(0, k)));
        if (!r.exists) continue;
        if (r.kind !== 'directory') throw new ToolgateError('invalid_resource', `${r.path} is not a directory`, { path: r.path });
        base = [...r.components];
        break;
      } catch (inner) {
        if (!isNotFound(inner)) throw inner;
      }
    }
    canonical = [...base, ...parts.slice(k)];
    exists = false;
    parent = null;
  }
  const name = canonical[canonical.length - 1];
  if (name === undefined) throw new ToolgateError('invalid_resource', 'the workspace root is a directory, not a file', { path: '.' });
  const path = joinComponents(canonical);
  assertWritable(ws, path, requested);
  return { path, dir: canonical.slice(0, -1), name, exists, parent };
}

/** A write target opened at the point of effect. */
export interface OpenedTarget {
  readonly path: string;
  /** Canonical parent path ('' for the root). */
  readonly dir: string;
  readonly dirfd: number;
  readonly parent: Identity;
  readonly name: string;
  readonly state: LeafState;
  /** The current content and metadata, when the entry is a regular file. */
  readonly current: FileBytes | null;
  readonly created_dirs: readonly string[];
  /** The file's identity and link count when it is a regular file (for `refuseSecretLink`). */
  readonly linked: LinkedFile | null;
  close(): void;
}

/**
 * Opens the parent along the canonical path (no link followed), checks it is the directory
 * normalization saw, and reads the current file through the open parent.
 */
export function openWriteTarget(ws: Workspace, target: WriteTarget, opts: { readonly createParents: boolean; readonly maxBytes: number }): OpenedTarget {
  const opened = openTargetFile(ws, target, opts);
  const { reading } = opened;
  return reading === null ? opened.target : settle(opened.target, reading, () => readSlice(reading, 0, reading.st.size));
}

/**
 * As openWriteTarget, reading a large file a slice at a time with turns of the event loop
 * between (pacer.ts): fs.delete reads files up to 256 MiB. The read is checked whole afterwards,
 * as at once (size, mtime and ctime unchanged).
 */
export async function openWriteTargetPaced(ws: Workspace, target: WriteTarget, opts: { readonly createParents: boolean; readonly maxBytes: number }, pacer = new TreePacer()): Promise<OpenedTarget> {
  const opened = openTargetFile(ws, target, opts);
  const { reading } = opened;
  if (reading === null) return opened.target;
  try {
    await pacer.slices(reading.st.size, (at, n) => readSlice(reading, at, n));
  } catch (e) {
    closeSync(reading.fd);
    opened.target.close();
    throw e;
  }
  return settle(opened.target, reading, () => {});
}

/** The target with the content `read` put in `reading`, checked; the file's fd is closed, and the target too on failure. */
function settle(target: OpenedTarget, reading: Reading, read: () => void): OpenedTarget {
  try {
    read();
    return { ...target, ...readDone(reading, target.path) };
  } catch (e) {
    target.close();
    throw e;
  } finally {
    closeSync(reading.fd);
  }
}

/** A regular file opened for its content: the buffer it is read into, and how much of it came. */
interface Reading {
  readonly fd: number;
  readonly st: Stats;
  readonly data: Buffer;
  got: number;
}

/** The parent opened and checked, and the file (when it is one) opened and checked, not yet read. */
function openTargetFile(ws: Workspace, target: WriteTarget, opts: { readonly createParents: boolean; readonly maxBytes: number }): { readonly target: OpenedTarget; readonly reading: Reading | null } {
  const dir = openDirectoryBeneath(ws.rootFd, ws.root, target.dir, { create: opts.createParents });
  const close = (): void => {
    if (dir.fd !== ws.rootFd) closeSync(dir.fd);
  };
  try {
    if (target.parent && (target.parent.dev !== dir.identity.dev || target.parent.ino !== dir.identity.ino)) {
      throw new ToolgateError('precondition_failed', `the directory of ${target.path} changed between authorization and use`, { path: target.path, reason: 'parent_changed' });
    }
    const state = leafStateOf(dir.fd, target.name);
    if (state.kind === 'other') throw new ToolgateError('invalid_resource', `${target.path} is not a regular file`, { path: target.path, kind: 'other' });
    const reading = state.kind === 'file' ? openCurrent(dir.fd, target, state, opts.maxBytes) : null;
    return { target: { path: target.path, dir: target.dir.join('/'), dirfd: dir.fd, parent: dir.identity, name: target.name, state, current: null, linked: null, created_dirs: dir.created, close }, reading };
  } catch (e) {
    close();
    throw e;
  }
}

/** Opens the file and checks it is the entry lstat saw and within the bound; the caller reads it (readSlice) and closes the fd. */
function openCurrent(dirfd: number, target: WriteTarget, state: Extract<LeafState, { kind: 'file' }>, maxBytes: number): Reading {
  let fd: number;
  let st: Stats;
  try {
    // The entry was a regular file at lstat; one swapped for a FIFO since must not block the open.
    ({ fd, st } = openRegular(dirfd, target.name, target.path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENXIO') throw new ToolgateError('precondition_failed', `${target.path} changed while it was opened`, { path: target.path, reason: 'changed_since_check' });
    throw e;
  }
  try {
    if (st.dev !== state.dev || st.ino !== state.ino) throw new ToolgateError('precondition_failed', `${target.path} changed while it was opened`, { path: target.path, reason: 'changed_since_check' });
    if (st.size > maxBytes) throw new ToolgateError('limit_exceeded', `${target.path} is larger than ${maxBytes} bytes`, { path: target.path, size: st.size, limit: maxBytes });
    return { fd, st, data: Buffer.allocUnsafe(st.size), got: 0 };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Reads bytes [at, at + length) of the file (fewer when it ends first: readDone then refuses it). */
function readSlice(r: Reading, at: number, length: number): void {
  let got = 0;
  while (got < length) {
    const n = readSync(r.fd, r.data, at + got, length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  r.got += got;
}

/** The content read and the state after the read: the one the content belongs to, unless the file changed meanwhile. */
function readDone(r: Reading, path: string): Pick<OpenedTarget, 'current' | 'state' | 'linked'> {
  const { st } = r;
  const after = fstatSync(r.fd);
  if (r.got !== st.size || after.size !== st.size || after.mtimeMs !== st.mtimeMs || after.ctimeMs !== st.ctimeMs) {
    throw new ToolgateError('precondition_failed', `${path} changed while it was read`, { path, reason: 'changed_since_check' });
  }
  return {
    current: { data: r.data, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid },
    state: { kind: 'file', dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs },
    linked: { dev: st.dev, ino: st.ino, nlink: st.nlink },
  };
}

