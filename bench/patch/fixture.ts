// The generated repository the patch benchmarks share: a module source whose `uses` call the
// identifier OLD in ~7-8 separate places, and git with a fixed identity.
import { execFileSync } from 'node:child_process';

export const OLD = 'fetchUserRecord';
export const NEW = 'loadAccountRecord';

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', ...args], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** A plausible TypeScript module; `uses` of them call the identifier in ~7-8 separate places. */
export function moduleSource(i: number, uses: boolean): string {
  const out: string[] = [`// module ${i}: generated for bench/patch`, `import { log } from '../lib/log.js';`];
  if (uses) out.push(`import { ${OLD} } from '../lib/records.js';`);
  out.push('');
  for (let f = 0; f < 16; f++) {
    out.push(`export async function handler${i}_${f}(id: string, opts: { retries: number }): Promise<number> {`);
    out.push(`  let attempts = 0;`, `  const started = Date.now();`, `  while (attempts < opts.retries) {`, `    attempts++;`);
    if (uses && f % 2 === 0) out.push(`    const record = await ${OLD}(id);`, `    if (record) return record.size + ${f};`);
    else out.push(`    const value = id.length * ${f + 1};`, `    if (value > ${i}) return value;`);
    out.push(`  }`, `  log('handler${i}_${f}', Date.now() - started);`, `  return -1;`, `}`, '');
  }
  return out.join('\n');
}

/**
 * Commits the generated files of `repo` and returns the diff that renames OLD to NEW wherever it
 * appears (the patch every benchmark applies) and the files it touches; the work tree is left as
 * committed.
 */
export function renamePatch(repo: string): { patch: string; touched: string[] } {
  git(repo, 'init', '-q');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'fixture');
  const touched = git(repo, 'grep', '-l', OLD, '--', 'pkg*').trim().split('\n');
  for (const f of touched) execFileSync('sed', ['-i', `s/${OLD}/${NEW}/g`, `${repo}/${f}`]);
  const patch = git(repo, 'diff');
  git(repo, 'checkout', '-q', '--', '.');
  return { patch, touched };
}
