// git on the host, for reads whose output is data (lists of paths, locations): the argv is
// fixed by Toolgate and gitArgs turns off what in the repository's config could run code.
import { runCollect, type ChildResult } from '../process/child.js';
import { gitArgs } from './args.js';

/** Runs `git <args>` in `cwd` to completion; the exit code says whether it worked. */
export function runGit(cwd: string, args: readonly string[], signal: AbortSignal): Promise<ChildResult & { stdout: Buffer }> {
  return runCollect('git', gitArgs(...args), cwd, signal);
}

/** NUL-separated records (`-z` output), without the empty one after the last NUL. */
export function splitZ(buf: Buffer): string[] {
  const text = buf.toString('utf8');
  const out = text.split('\0');
  if (out.length && out[out.length - 1] === '') out.pop();
  return out;
}
