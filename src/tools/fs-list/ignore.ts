// What .gitignore excludes beneath the workspace, as git says it: the untracked ignored entries
// (`dir/` for a directory ignored as a whole). Tracked files are never ignored. Outside a git
// work tree nothing is (fs.search's walk applies no ignore rules either).
import { runGit, splitZ } from '../../resources/index.js';

export interface IgnoreRules {
  /** Whether the workspace-relative `path` (a directory when `dir`) is excluded. */
  ignored(path: string, dir: boolean): boolean;
}

const NONE: IgnoreRules = { ignored: () => false };

export async function ignoreRules(root: string, signal: AbortSignal): Promise<IgnoreRules> {
  const r = await runGit(root, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'], signal);
  signal.throwIfAborted();
  if (r.code !== 0) return NONE;
  const set = new Set(splitZ(r.stdout));
  if (set.size === 0) return NONE;
  return { ignored: (path, dir) => set.has(dir ? `${path}/` : path) };
}
