// Where a mutation lands: normalized once for authorization (canonical path, classification)
// and opened again at the point of effect along the canonical path with no link followed.
import { closeSync, fstatSync, readSync, type Stats } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import { leafStateOf, type FileBytes, type LeafState } from './atomic-replace.js';
import { joinComponents, lexicalComponents } from './lexical.js';
import { openDirectoryBeneath } from './open-directory.js';
import { type Identity } from './open-beneath.js';
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
export function openWriteTarget(
  ws: Workspace,
  target: WriteTarget,
  opts: { readonly createParents: boolean; readonly maxBytes: number },
): OpenedTarget {
  const dir = openDirectoryBeneath(ws.rootFd, ws.root, target.dir, { create: opts.createParents });
  const close = (): void => {
    if (dir.fd !== ws.rootFd) closeSync(dir.fd);
  };
  try {
    if (target.parent && (target.parent.dev !== dir.identity.dev || target.parent.ino !== dir.identity.ino)) {
      throw new ToolgateError('precondition_failed', `the directory of ${target.path} changed between authorization and use`, { path: target.path, reason: 'parent_changed' });
    }
    let state = leafStateOf(dir.fd, target.name);
    if (state.kind === 'other') throw new ToolgateError('invalid_resource', `${target.path} is not a regular file`, { path: target.path, kind: 'other' });
    let current: FileBytes | null = null;
    let linked: LinkedFile | null = null;
    if (state.kind === 'file') ({ current, state, linked } = readCurrent(dir.fd, target, state, opts.maxBytes));
    return { path: target.path, dir: target.dir.join('/'), dirfd: dir.fd, parent: dir.identity, name: target.name, state, current, linked, created_dirs: dir.created, close };
  } catch (e) {
    close();
    throw e;
  }
}

/** Reads the file and returns the state after the read: the one the content belongs to. */
function readCurrent(dirfd: number, target: WriteTarget, state: Extract<LeafState, { kind: 'file' }>, maxBytes: number): { current: FileBytes; state: LeafState; linked: LinkedFile } {
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
    const data = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const n = readSync(fd, data, got, st.size - got, got);
      if (n === 0) break;
      got += n;
    }
    const after = fstatSync(fd);
    if (got !== st.size || after.size !== st.size || after.mtimeMs !== st.mtimeMs || after.ctimeMs !== st.ctimeMs) {
      throw new ToolgateError('precondition_failed', `${target.path} changed while it was read`, { path: target.path, reason: 'changed_since_check' });
    }
    return {
      current: { data, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid },
      state: { kind: 'file', dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs },
      linked: { dev: st.dev, ino: st.ino, nlink: st.nlink },
    };
  } finally {
    closeSync(fd);
  }
}
