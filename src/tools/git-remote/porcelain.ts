import type { RefAnswer } from './schema.js';

/**
 * The per-ref lines of `git push --porcelain` (git-push(1), OUTPUT): `<flag>\t<from>:<to>\t<summary>`.
 * A ref with a line got an answer (from the remote, or from git before anything was sent); a ref
 * without one did not, whatever the exit code.
 */
export function pushAnswers(stdout: string): RefAnswer[] {
  const out: RefAnswer[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^([ +\-*!=])\t([^\t]*):([^\t:]+)\t(.*)$/.exec(line);
    if (m) out.push({ flag: m[1] as string, ref: m[3] as string, summary: m[4] as string });
  }
  return out;
}
