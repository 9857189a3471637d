// A child's isolation: a git worktree at an immutable input revision, and what it hands back:
// a commit of its tree (kept under refs/toolgate/tasks/<id> so that gc keeps it), the paths it
// changed and the patch against the input revision.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolgateError } from '../protocol/index.js';
import { git, gitOk } from './git.js';

export interface Repository {
  /** The workspace root, which must be the repository's top level. */
  readonly root: string;
  /** Its absolute git dir: every command names it, never a worktree's `.git` file. */
  readonly gitDir: string;
}

/** Whether a workspace path is a secret (the workspace's classifier): such a file never enters a snapshot. */
export type SecretTest = (path: string) => boolean;

export async function repositoryAt(root: string, signal?: AbortSignal): Promise<Repository> {
  const r = await git(root, ['rev-parse', '--show-toplevel', '--absolute-git-dir'], signal ? { signal } : {});
  const [top, gitDir] = r.stdout.toString('utf8').trim().split('\n');
  if (r.code !== 0 || top === undefined || gitDir === undefined || top !== root) {
    throw new ToolgateError('execution_failed', `subtasks need the workspace to be the top level of a git repository (${root})`, { reason: 'not_a_git_repository', exit_code: r.code });
  }
  return { root, gitDir };
}

/** Commits `workTree` as it is now (tracked and untracked files, not ignored ones) on top of `parent`, through a private index. */
async function commitTree(repo: Repository, workTree: string, parent: string | null, message: string, isSecret: SecretTest, signal?: AbortSignal): Promise<string> {
  const index = join(tmpdir(), `toolgate-index-${randomUUID()}`);
  const env = { GIT_INDEX_FILE: index };
  const o = { env, ...(signal ? { signal } : {}) };
  const base = ['--git-dir', repo.gitDir, '--work-tree', workTree];
  try {
    if (parent !== null) await gitOk(workTree, [...base, 'read-tree', parent], 'read the base tree', o);
    // Secret files are left out before `git add` would write them into the object store.
    const listed = (await gitOk(workTree, [...base, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], 'list the work tree', o)).toString('utf8');
    const secrets = listed.split('\0').filter((p) => p !== '' && isSecret(p));
    await gitOk(workTree, [...base, 'add', '-A', '--', '.', ...secrets.map((p) => `:(exclude,literal)${p}`)], 'stage the work tree', o);
    const tree = (await gitOk(workTree, [...base, 'write-tree'], 'write the tree', o)).toString('utf8').trim();
    const args = [...base, 'commit-tree', tree, ...(parent === null ? [] : ['-p', parent]), '-m', message];
    return (await gitOk(workTree, args, 'commit the snapshot', o)).toString('utf8').trim();
  } finally {
    rmSync(index, { force: true });
  }
}

/** The parent's current revision as an immutable commit: HEAD plus its uncommitted changes. */
export async function snapshotWorkspace(repo: Repository, isSecret: SecretTest, signal?: AbortSignal): Promise<string> {
  const head = await git(repo.root, ['--git-dir', repo.gitDir, 'rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const parent = head.code === 0 ? head.stdout.toString('utf8').trim() : null;
  return commitTree(repo, repo.root, parent, 'toolgate: input revision of a subtask', isSecret, signal);
}

export async function addWorktree(repo: Repository, dir: string, revision: string, signal?: AbortSignal): Promise<void> {
  await gitOk(repo.root, ['--git-dir', repo.gitDir, 'worktree', 'add', '--detach', '--quiet', dir, revision], 'add the worktree', signal ? { signal } : {});
}

/** Removes the worktree and its administrative entry; idempotent. */
export async function removeWorktree(repo: Repository, dir: string): Promise<void> {
  // From the git dir: the worktree itself is about to go.
  await git(repo.gitDir, ['--git-dir', repo.gitDir, 'worktree', 'remove', '--force', '--force', dir]);
  // What git left (untracked build output) goes too, without holding the event loop over a tree.
  await rm(dir, { recursive: true, force: true });
  await git(repo.gitDir, ['--git-dir', repo.gitDir, 'worktree', 'prune']);
}

export interface ChildSnapshot {
  readonly commit: string;
  /** Paths changed against the input revision, with git's status letter (A, M, D, T). */
  readonly changes: readonly { readonly status: string; readonly path: string }[];
  readonly patch: Buffer;
}

/** What the child changed in its worktree, as a commit on the input revision, its paths and its patch. */
export async function snapshotChild(repo: Repository, worktree: string, input: string, task: string, isSecret: SecretTest, signal?: AbortSignal): Promise<ChildSnapshot> {
  const commit = await commitTree(repo, worktree, input, `toolgate: result of subtask ${task}`, isSecret, signal);
  const o = signal ? { signal } : {};
  const names = (await gitOk(repo.root, ['--git-dir', repo.gitDir, 'diff-tree', '-r', '-z', '--no-renames', '--name-status', input, commit], 'list the changed paths', o)).toString('utf8');
  const parts = names.split('\0').filter((p) => p !== '');
  const changes: { status: string; path: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) changes.push({ status: parts[i] as string, path: parts[i + 1] as string });
  const patch = await gitOk(repo.root, ['--git-dir', repo.gitDir, 'diff', '--binary', '--no-renames', input, commit], 'write the patch', o);
  return { commit, changes, patch };
}

/** Keeps the result commit from `git gc`: called once the completion is recorded (a losing concurrent completion must not move it). */
export async function keepCommit(repo: Repository, task: string, commit: string): Promise<void> {
  await gitOk(repo.gitDir, ['--git-dir', repo.gitDir, 'update-ref', `refs/toolgate/tasks/${task}`, commit], 'keep the result commit');
}

/** A blob at `rev:path`, or null when the path is absent there. */
export async function blobAt(repo: Repository, rev: string, path: string): Promise<Buffer | null> {
  const r = await git(repo.root, ['--git-dir', repo.gitDir, 'cat-file', 'blob', `${rev}:${path}`]);
  return r.code === 0 ? r.stdout : null;
}

/** The file mode at `rev:path` (e.g. 0o100755), or null when absent. */
export async function modeAt(repo: Repository, rev: string, path: string): Promise<number | null> {
  const r = await git(repo.root, ['--git-dir', repo.gitDir, 'ls-tree', '-z', rev, '--', path]);
  const m = /^(\d+) /.exec(r.stdout.toString('utf8'));
  return r.code === 0 && m ? parseInt(m[1] as string, 8) : null;
}
