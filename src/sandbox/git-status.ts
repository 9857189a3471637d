import { readGitStatus, type StatusSnapshot } from '../resources/index.js';
import { GIT_TIMEOUT_MS, gitInSandbox } from './confined-git.js';
import type { Sandbox } from './sandbox.js';

/** The work tree's status around a command, read inside the command's sandbox; null outside a git work tree or when git fails. */
export function gitStatus(sandbox: Sandbox, root: string, signal: AbortSignal, timeoutMs = GIT_TIMEOUT_MS): Promise<StatusSnapshot | null> {
  return readGitStatus(gitInSandbox(sandbox, { timeoutMs }), root, signal);
}

/** A status read whose sandbox is set up at once and whose git starts when it is taken. */
export interface HeldStatus {
  /**
   * Lets git start and returns its read; null when the hold lasted its timeout (its wall timer
   * stops a held sandbox too): the caller reads afresh, and drops this one.
   */
  take(): Promise<StatusSnapshot | null> | null;
  /** Stops it, held or not, and waits until its sandbox is gone. */
  drop(): Promise<void>;
}

/**
 * The status after a command, its sandbox set up while the command runs (issue 14: in a git work
 * tree the status after was a whole sandbox setup on the call's path once the command ended).
 * `signal` stops it, held or not; `timeoutMs` bounds the hold, and git again from the release.
 */
export function heldGitStatus(sandbox: Sandbox, root: string, signal: AbortSignal, timeoutMs = GIT_TIMEOUT_MS): HeldStatus {
  const own = new AbortController();
  const onAbort = (): void => own.abort();
  if (signal.aborted) own.abort();
  else signal.addEventListener('abort', onAbort, { once: true });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const since = performance.now();
  const read = readGitStatus(gitInSandbox(sandbox, { hold: () => gate, timeoutMs }), root, own.signal).finally(() => signal.removeEventListener('abort', onAbort));
  read.catch(() => {}); // awaited by take's caller or drop
  const drop = async (): Promise<void> => {
    own.abort();
    release();
    await read.catch(() => null);
  };
  return {
    take: () => {
      // The held sandbox's wall timer started at its spawn, after `since`, and a timer never
      // fires early: under the timeout it has not fired, and only microtasks run before the release.
      if (performance.now() - since >= timeoutMs) return null;
      release();
      return read;
    },
    drop,
  };
}
