import { readGitStatus, type StatusSnapshot } from '../../resources/index.js';
import { gitInSandbox, type Sandbox } from '../../sandbox/index.js';

/** The work tree's status around a command, read inside the command's sandbox; null outside a git work tree or when git fails. */
export function gitStatus(sandbox: Sandbox, root: string, signal: AbortSignal): Promise<StatusSnapshot | null> {
  return readGitStatus(gitInSandbox(sandbox), root, signal);
}
