// The files of a git work tree as git lists them: the index plus untracked files, and what
// .gitignore leaves out. Names only: git opens directories by name, so a caller that reads the
// files must re-check each untracked one beneath the root itself.
import { runGit, splitZ } from './run.js';

const GIT_MODE_REGULAR = /^100(644|755) /;

export interface GitFileLists {
  /** Tracked regular files (no links, no submodules), once each, in the index's order (path bytes). */
  readonly tracked: string[];
  /** Untracked files, ignored ones too when asked; in git's order, not re-checked. */
  readonly untracked: string[];
  /** Ignored untracked entries (`dir/` for a wholly ignored directory); none when ignored files were asked for. */
  readonly ignored: string[];
}

/** null when `root` is not in a git work tree or git fails; throws when `signal` aborted. */
export async function listGitFiles(root: string, includeIgnored: boolean, signal: AbortSignal): Promise<GitFileLists | null> {
  const cached = runGit(root, ['ls-files', '-z', '--stage'], signal);
  const others = runGit(root, ['ls-files', '-z', '--others', ...(includeIgnored ? [] : ['--exclude-standard'])], signal);
  const ignored = includeIgnored ? null : runGit(root, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], signal);
  const [c, o, i] = await Promise.all([cached, others, ignored]);
  signal.throwIfAborted();
  if (c.code !== 0 || o.code !== 0 || (i !== null && i.code !== 0)) return null;
  const tracked: string[] = [];
  let previous = '';
  for (const rec of splitZ(c.stdout)) {
    const path = rec.slice(rec.indexOf('\t') + 1);
    // Links and submodules are not followed: only regular files are listed. Unmerged
    // paths appear once per stage, next to each other.
    if (!GIT_MODE_REGULAR.test(rec) || path === previous) continue;
    previous = path;
    tracked.push(path);
  }
  return { tracked, untracked: splitZ(o.stdout), ignored: i === null ? [] : splitZ(i.stdout) };
}
