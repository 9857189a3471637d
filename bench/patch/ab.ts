// A/B in one process: the runtime of another checkout (argv[2], e.g. the base commit's tree) and
// this one, each on its own copy of the bench/patch fixture, called alternately with git apply,
// so load on a shared machine hits all three alike. Prints medians and the paired ratio median.
//   npx tsx bench/patch/ab.ts /path/to/base-checkout [rounds]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRuntime } from '../../src/runtime/index.js';
import { git, moduleSource, OLD, renamePatch } from './fixture.js';

type CreateRuntime = typeof createRuntime;
const baseDir = resolve(process.argv[2] as string);
const ROUNDS = Number(process.argv[3] ?? 40);

function fixture(repo: string): string {
  mkdirSync(join(repo, 'lib'), { recursive: true });
  writeFileSync(join(repo, 'lib/log.ts'), 'export function log(...a: unknown[]): void { void a; }\n');
  writeFileSync(join(repo, 'lib/records.ts'), `export async function ${OLD}(id: string): Promise<{ size: number } | null> { return { size: id.length }; }\n`);
  for (let i = 0; i < 220; i++) {
    mkdirSync(join(repo, `pkg${i % 11}`), { recursive: true });
    writeFileSync(join(repo, `pkg${i % 11}`, `mod${i}.ts`), moduleSource(i, i % 11 === 0 && i / 11 < 20));
  }
  const { patch } = renamePatch(repo);
  return patch;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
mkdirSync(join(process.cwd(), 'bench/.work'), { recursive: true });
const work = mkdtempSync(join(process.cwd(), 'bench/.work/ab-'));
try {
  const baseCreate = ((await import(join(baseDir, 'src/runtime/index.ts'))) as { createRuntime: CreateRuntime }).createRuntime;
  const sides = await Promise.all(
    (['base', 'this'] as const).map(async (name) => {
      const repo = join(work, name, 'repo');
      const patch = fixture(repo);
      const rt = await (name === 'base' ? baseCreate : createRuntime)({ workspace: repo, stateDir: join(work, name, 'state') });
      return { name, repo, patch, rt, ms: [] as number[] };
    }),
  );
  const gitRepo = join(work, 'git', 'repo');
  writeFileSync(join(work, 'rename.patch'), fixture(gitRepo));
  const ga: number[] = [];
  const pairs: number[] = [];
  try {
    for (let round = 0; round < ROUNDS + 3; round++) {
      let t = performance.now();
      execFileSync('git', ['apply', join(work, 'rename.patch')], { cwd: gitRepo });
      const g = performance.now() - t;
      git(gitRepo, 'checkout', '-q', '--', '.');
      const per: number[] = [];
      for (const s of round % 2 ? [...sides].reverse() : sides) {
        t = performance.now();
        const r = await s.rt.call({ protocol_version: 'tool-call.v1', task_id: 'bench', tool: 'fs.patch', arguments: { unified_diff: s.patch }, idempotency_key: `r${round}` });
        const ms = performance.now() - t;
        if (r.status !== 'succeeded') throw new Error(`${s.name}: ${JSON.stringify(r.error)}`);
        git(s.repo, 'checkout', '-q', '--', '.');
        if (round >= 3) s.ms.push(ms);
        per[sides.indexOf(s)] = ms;
      }
      if (round >= 3) {
        ga.push(g);
        pairs.push((per[1] as number) / (per[0] as number));
      }
    }
  } finally {
    for (const s of sides) await s.rt.close();
  }
  const g = median(ga);
  console.log(`git apply median ${g.toFixed(2)} ms`);
  for (const s of sides) console.log(`${s.name.padEnd(5)} runtime.call median ${median(s.ms).toFixed(2)} ms  ratio to git apply ${(median(s.ms) / g).toFixed(2)}`);
  console.log(`paired this/base median ${median(pairs).toFixed(3)} (${ROUNDS} rounds)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
