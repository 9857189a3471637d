// How many index entries git tracks at or under a path, read on the host (fs.delete reports
// whether what it removed was tracked).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * How many index entries git tracks at or under `path`; null when the workspace is not a git
 * work tree or git cannot tell. fsmonitor is forced off: repository config must not run code.
 */
export function trackedEntries(root: string, path: string): number | null {
  if (!existsSync(join(root, '.git'))) return null;
  try {
    const out = execFileSync('git', ['-c', 'core.fsmonitor=false', '--literal-pathspecs', 'ls-files', '-z', '--', path], {
      cwd: root,
      encoding: 'utf8',
      timeout: 10_000,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' },
    });
    return out.split('\0').filter(Boolean).length;
  } catch {
    return null;
  }
}
