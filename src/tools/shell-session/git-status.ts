// The status around a session's command: shell.exec's reads (one sandboxed `git status` each),
// with the status after set up while the command runs when it ends within the call that ran it.
import type { StatusSnapshot } from '../../resources/index.js';
import { gitStatus, type HeldStatus, type Sandbox } from '../../sandbox/index.js';

export { gitStatus, heldGitStatus, type HeldStatus } from '../../sandbox/index.js';

const GIT_STATUS_AFTER_ABORT_MS = 2_000;

/**
 * git status after a command, briefly even when the call was aborted: the evidence still
 * matters. `held`: the read set up while the command ran (taken, or dropped for a fresh read
 * when it waited past its timeout).
 */
export async function statusAfter(sandbox: Sandbox, root: string, signal: AbortSignal, held: HeldStatus | null = null): Promise<StatusSnapshot | null> {
  const quick = new AbortController();
  const onAbort = (): void => quick.abort();
  let timer: NodeJS.Timeout | undefined;
  if (signal.aborted) timer = setTimeout(onAbort, GIT_STATUS_AFTER_ABORT_MS);
  else signal.addEventListener('abort', onAbort, { once: true });
  const stopHeld = (): void => void held?.drop();
  quick.signal.addEventListener('abort', stopHeld, { once: true });
  try {
    const taken = held?.take() ?? null;
    if (taken !== null) return await taken;
    await held?.drop();
    return await gitStatus(sandbox, root, quick.signal);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    quick.signal.removeEventListener('abort', stopHeld);
  }
}
