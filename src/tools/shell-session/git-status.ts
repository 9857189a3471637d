import { readGitStatus, type StatusSnapshot } from '../../resources/index.js';
import { gitInSandbox, type Sandbox } from '../../sandbox/index.js';

const GIT_STATUS_AFTER_ABORT_MS = 2_000;

/** The work tree's status, read inside the session's sandbox profile; null outside a git work tree. */
export function gitStatus(sandbox: Sandbox, root: string, signal: AbortSignal): Promise<StatusSnapshot | null> {
  return readGitStatus(gitInSandbox(sandbox), root, signal);
}

/** git status after a command, briefly even when the call was aborted: the evidence still matters. */
export async function statusAfter(sandbox: Sandbox, root: string, signal: AbortSignal): Promise<StatusSnapshot | null> {
  const quick = new AbortController();
  const onAbort = (): void => quick.abort();
  let timer: NodeJS.Timeout | undefined;
  if (signal.aborted) timer = setTimeout(onAbort, GIT_STATUS_AFTER_ABORT_MS);
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await gitStatus(sandbox, root, quick.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
