// The checks and effects of undo, one change record at a time. A record can be undone only when
// the workspace still holds exactly what the mutation left (its post-images); otherwise it is
// a conflict, named by path.
import { closeSync, linkSync, lstatSync, renameSync, unlinkSync } from 'node:fs';
import { ToolgateError, sha256Hex, type Digest } from '../../protocol/index.js';
import type { ArtifactSink } from '../../registry/index.js';
import {
  buildTree,
  openDirectoryBeneath,
  openForUndo,
  procPath,
  recheckSite,
  removeTree,
  renameNoReplace,
  syncDirectories,
  syncFileSystem,
  leafStateOf,
  PACE_BYTES,
  sha256Paced,
  tempName,
  TreePacer,
  type ChangeRecord,
  type FileBytes,
  type FileImage,
  type RebuildEntry,
  type Workspace,
} from '../../resources/index.js';

export interface Conflict {
  readonly path: string;
  readonly reason: 'content_changed' | 'now_exists' | 'now_missing' | 'identity_changed';
  readonly expected_sha256: string | null;
  readonly actual_sha256: string | null;
}

function split(path: string): { dir: string[]; name: string } {
  const parts = path.split('/');
  return { dir: parts.slice(0, -1), name: parts[parts.length - 1] as string };
}

/** The current sha256 at `path` (null when absent), and whether it is something other than a file. */
function currentOf(ws: Workspace, path: string): { sha: string | null; other: boolean } {
  const t = openForUndo(ws, path, false);
  if (!t) return { sha: null, other: false };
  try {
    return { sha: t.current ? sha256Hex(t.current.data) : null, other: false };
  } finally {
    t.close();
  }
}

function otherAt(ws: Workspace, path: string): { dev: number; ino: number; kind: string } | null {
  const { dir, name } = split(path);
  let d;
  try {
    d = openDirectoryBeneath(ws.rootFd, ws.root, dir, { create: false });
  } catch (e) {
    if (ToolgateError.isInstance(e) && e.code === 'not_found') return null;
    throw e;
  }
  try {
    const st = lstatSync(procPath(d.fd, name), { throwIfNoEntry: false });
    if (!st) return null;
    return { dev: st.dev, ino: st.ino, kind: st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : st.isFile() ? 'file' : 'other' };
  } finally {
    if (d.fd !== ws.rootFd) closeSync(d.fd);
  }
}

/** Every way the workspace differs from what the record left behind. */
export function conflictsOf(ws: Workspace, c: ChangeRecord): Conflict[] {
  switch (c.op) {
    case 'file': {
      let cur: { sha: string | null; other: boolean };
      try {
        cur = currentOf(ws, c.path);
      } catch (e) {
        if (ToolgateError.isInstance(e) && e.code === 'invalid_resource') return [{ path: c.path, reason: 'content_changed', expected_sha256: c.after?.sha256 ?? null, actual_sha256: null }];
        throw e;
      }
      const want = c.after?.sha256 ?? null;
      if (cur.sha === want) return [];
      const reason = want === null ? 'now_exists' : cur.sha === null ? 'now_missing' : 'content_changed';
      return [{ path: c.path, reason, expected_sha256: want, actual_sha256: cur.sha }];
    }
    case 'rename': {
      const out: Conflict[] = [];
      const at = otherAt(ws, c.to);
      if (!at) out.push({ path: c.to, reason: 'now_missing', expected_sha256: c.after_sha256, actual_sha256: null });
      else if (at.dev !== c.identity.dev || at.ino !== c.identity.ino) out.push({ path: c.to, reason: 'identity_changed', expected_sha256: c.after_sha256, actual_sha256: null });
      else if (c.kind === 'file') {
        const sha = currentOf(ws, c.to).sha;
        if (sha !== c.after_sha256) out.push({ path: c.to, reason: 'content_changed', expected_sha256: c.after_sha256, actual_sha256: sha });
      }
      if (otherAt(ws, c.from)) out.push({ path: c.from, reason: 'now_exists', expected_sha256: null, actual_sha256: currentOf(ws, c.from).sha });
      return out;
    }
    case 'tree':
      return otherAt(ws, c.path) ? [{ path: c.path, reason: 'now_exists', expected_sha256: null, actual_sha256: null }] : [];
  }
}

/**
 * The bytes of a preimage, checked against the digest the receipt recorded. Read and hashed a
 * slice at a time (`pacer`): fs.undo of a 200 MB file held the event loop 1.3 s. A preimage
 * that is its whole artifact is checked by the artifact's own digest, not hashed again.
 */
export async function preimageBytes(artifacts: ArtifactSink, img: FileImage, blobs: Map<string, Buffer> = new Map(), pacer = new TreePacer()): Promise<FileBytes> {
  if (img.artifact === null) throw new ToolgateError('internal_error', 'a preimage without its artifact', {});
  let blob = blobs.get(img.artifact);
  if (!blob) {
    const digest = img.artifact as Digest;
    blob = artifacts.getPaced ? await artifacts.getPaced(digest, pacer) : artifacts.get(digest);
    blobs.set(img.artifact, blob);
  }
  const data = blob.subarray(img.offset, img.offset + img.size);
  const whole = img.offset === 0 && img.size === blob.length && img.artifact === `sha256:${img.sha256}`;
  const sha = whole ? img.sha256 : data.length > PACE_BYTES ? await sha256Paced(data, pacer) : sha256Hex(data);
  if (sha !== img.sha256) throw new ToolgateError('internal_error', `preimage artifact ${img.artifact} does not match its sha256`, { artifact: img.artifact });
  return { data, mode: img.mode };
}

/** Moves `to` back to `from` (inode preserved), after re-checking both places. */
export async function renameBack(ws: Workspace, c: Extract<ChangeRecord, { op: 'rename' }>): Promise<void> {
  const src = split(c.to);
  const dst = split(c.from);
  const a = openDirectoryBeneath(ws.rootFd, ws.root, src.dir, { create: false });
  const b = openDirectoryBeneath(ws.rootFd, ws.root, dst.dir, { create: false });
  try {
    const expected = leafStateOf(a.fd, src.name);
    if (expected.kind === 'absent' || expected.ino !== c.identity.ino) throw new ToolgateError('undo_conflict', `${c.to} changed`, { changed: [c.to] });
    recheckSite({ root: ws.root, dir: src.dir.join('/'), path: c.to, dirfd: a.fd, parent: a.identity, name: src.name, expected });
    recheckSite({ root: ws.root, dir: dst.dir.join('/'), path: c.from, dirfd: b.fd, parent: b.identity, name: dst.name, expected: { kind: 'absent' } });
    if (renameNoReplace(a.fd, src.name, b.fd, dst.name) === 'moved') {
      // atomic, and never over an entry that appeared since the re-check
    } else if (c.kind === 'directory') renameSync(procPath(a.fd, src.name), procPath(b.fd, dst.name));
    else {
      linkSync(procPath(a.fd, src.name), procPath(b.fd, dst.name));
      unlinkSync(procPath(a.fd, src.name));
    }
    await syncDirectories([a.fd, b.fd]);
  } finally {
    if (a.fd !== ws.rootFd) closeSync(a.fd);
    if (b.fd !== ws.rootFd) closeSync(b.fd);
  }
}

interface TreeManifest {
  readonly path: string;
  readonly entries: readonly { path: string; kind: 'file' | 'directory' | 'symlink'; mode: number; sha256?: string; artifact?: string; offset?: number; size?: number; target?: string }[];
}

/** Rebuilds a deleted tree beside its place, then moves it in with one rename (or link, for a link). */
export async function restoreTree(ws: Workspace, artifacts: ArtifactSink, c: Extract<ChangeRecord, { op: 'tree' }>): Promise<void> {
  const manifest = JSON.parse(artifacts.get(c.manifest as Digest).toString('utf8')) as TreeManifest;
  const blobs = new Map<string, Buffer>();
  const pacer = new TreePacer();
  const entries: RebuildEntry[] = [];
  for (const e of manifest.entries) {
    if (pacer.due()) await pacer.pause();
    if (e.kind !== 'file') {
      entries.push(e.kind === 'symlink' ? { path: e.path, kind: e.kind, mode: e.mode, target: e.target ?? '' } : { path: e.path, kind: e.kind, mode: e.mode });
      continue;
    }
    const bytes = await preimageBytes(artifacts, { sha256: e.sha256 ?? '', size: e.size ?? 0, mode: e.mode, artifact: e.artifact ?? null, offset: e.offset ?? 0 }, blobs, pacer);
    entries.push({ path: e.path, kind: 'file', mode: e.mode, data: bytes.data });
  }
  const { dir, name } = split(c.path);
  const d = openDirectoryBeneath(ws.rootFd, ws.root, dir, { create: true });
  const tmp = tempName('restore');
  try {
    await buildTree(d.fd, tmp, entries, pacer);
    // Its files and directories on disk before it takes the name: the parent's sync below makes
    // only the name durable, and a power loss could leave the restored files empty.
    await syncFileSystem(d.fd);
    recheckSite({ root: ws.root, dir: dir.join('/'), path: c.path, dirfd: d.fd, parent: d.identity, name, expected: { kind: 'absent' } });
    if (renameNoReplace(d.fd, tmp, d.fd, name) === 'moved') {
      // atomic, and never over an entry that appeared since the re-check
    } else if (entries[0]?.kind === 'directory') renameSync(procPath(d.fd, tmp), procPath(d.fd, name));
    else {
      linkSync(procPath(d.fd, tmp), procPath(d.fd, name));
      unlinkSync(procPath(d.fd, tmp));
    }
    await syncDirectories([d.fd]);
  } catch (e) {
    try {
      await removeTree(d.fd, tmp);
    } catch {
      // nothing staged
    }
    throw e;
  } finally {
    if (d.fd !== ws.rootFd) closeSync(d.fd);
  }
}
