// The workspace's own repository, read on the host with the fixed, safe argv of resources/git:
// where its objects are, which commit a revision names, whether one commit contains another, and
// the one write git.fetch makes (a remote-tracking ref), with hooks off.
import { ToolgateError } from '../../protocol/index.js';
import { gitArgs, runGit, runCollect } from '../../resources/index.js';
import type { ObjectFormat } from './connection.js';

export interface WorkspaceRepository {
  /** Absolute path of the object directory (the common one, for a linked worktree). */
  readonly objects: string;
  readonly objectFormat: ObjectFormat;
}

export async function workspaceRepository(root: string, signal: AbortSignal): Promise<WorkspaceRepository> {
  const r = await runGit(root, ['rev-parse', '--path-format=absolute', '--git-common-dir', '--show-object-format'], signal);
  const [common, format] = r.stdout.toString('utf8').trim().split('\n');
  if (r.code !== 0 || common === undefined || format === undefined) {
    throw new ToolgateError('invalid_resource', `the workspace is not a git repository: ${r.stderr.trim().slice(0, 200)}`, { kind: 'revision', revision: '', reason: 'no_repository' });
  }
  return { objects: `${common}/objects`, objectFormat: format === 'sha256' ? 'sha256' : 'sha1' };
}

/** The full commit id `revision` names in the workspace repository, or invalid_resource. */
export async function resolveCommit(root: string, revision: string, signal: AbortSignal): Promise<string> {
  const r = await runGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], signal);
  const oid = r.stdout.toString('utf8').trim();
  if (r.code !== 0 || !/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(oid)) {
    throw new ToolgateError('invalid_resource', `${JSON.stringify(revision.slice(0, 200))} names no commit in the workspace repository`, { kind: 'revision', revision: revision.slice(0, 1024), reason: 'not_a_commit' });
  }
  return oid;
}

/** true/false, or null when the workspace lacks `ancestor` (the remote has commits we never fetched). */
export async function containsCommit(root: string, ancestor: string, descendant: string, signal: AbortSignal): Promise<boolean | null> {
  const r = await runGit(root, ['merge-base', '--is-ancestor', ancestor, descendant], signal);
  return r.code === 0 ? true : r.code === 1 ? false : null;
}

/** Sets a remote-tracking ref (reference-transaction hooks off); the old value as read, null for new. */
export async function setTrackingRef(root: string, ref: string, oid: string, signal: AbortSignal): Promise<{ old: string | null }> {
  const before = await runGit(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', ref], signal);
  const old = before.code === 0 ? before.stdout.toString('utf8').trim() : null;
  const r = await runCollect('git', gitArgs('-c', 'core.hooksPath=/dev/null', 'update-ref', '-m', 'toolgate git.fetch', ref, oid, ...(old === null ? [''] : [old])), root, signal);
  if (r.code !== 0) throw new ToolgateError('execution_failed', `could not set ${ref}: ${r.stderr.trim().slice(0, 200)}`, { reason: 'update_ref', exit_code: r.code });
  return { old };
}
