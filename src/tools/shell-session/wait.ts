// Waiting for a session's command with a bound and the call's signal.

/** Resolves when `p` settles, `ms` passes (null: never) or `signal` aborts; no timer or listener outlives it. */
export async function waitFor(p: Promise<unknown>, ms: number | null, signal: AbortSignal): Promise<'done' | 'yield' | 'aborted'> {
  if (signal.aborted) return 'aborted';
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      p.then(() => 'done' as const),
      new Promise<'yield'>((r) => {
        if (ms !== null) timer = setTimeout(() => r('yield'), ms);
      }),
      new Promise<'aborted'>((r) => {
        onAbort = () => r('aborted');
        signal.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
