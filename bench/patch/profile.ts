// bench/patch/profile.ts: the benchmark's runtime.call loop alone, for `node --cpu-prof`.
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/patch/profile.ts [rounds] [work-dir]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRuntime } from '../../src/runtime/index.js';
import { moduleSource, OLD, renamePatch } from './fixture.js';

const ROUNDS = Number(process.argv[2] ?? 200);

const workDir = process.argv[3] ?? join(process.cwd(), 'bench/.work');
mkdirSync(workDir, { recursive: true });
const base = mkdtempSync(join(workDir, 'patchprof-'));
const repo = join(base, 'repo');
mkdirSync(join(repo, 'lib'), { recursive: true });
writeFileSync(join(repo, 'lib/log.ts'), 'export function log(...a: unknown[]): void { void a; }\n');
writeFileSync(join(repo, 'lib/records.ts'), `export async function ${OLD}(id: string): Promise<{ size: number } | null> { return { size: id.length }; }\n`);
for (let i = 0; i < 220; i++) {
  const dir = join(repo, `pkg${i % 11}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `mod${i}.ts`), moduleSource(i, i % 11 === 0 && i / 11 < 20));
}
const { patch, touched } = renamePatch(repo);
if (process.env['PATCH_OUT']) writeFileSync(process.env['PATCH_OUT'], patch);
// Restored by writing the originals back (a git checkout per round would dominate the profile).
const originals = touched.map((f) => [join(repo, f), readFileSync(join(repo, f))] as const);
const rt = await createRuntime({ workspace: repo, stateDir: join(base, 'state') });
const ms: number[] = [];
try {
  for (let round = 0; round < ROUNDS; round++) {
    const t = performance.now();
    const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 'bench', tool: 'fs.patch', arguments: { unified_diff: patch }, idempotency_key: `round-${round}` });
    ms.push(performance.now() - t);
    if (r.status !== 'succeeded') throw new Error(`fs.patch failed: ${JSON.stringify(r.error)}`);
    for (const [p, b] of originals) writeFileSync(p, b);
  }
} finally {
  await rt.close();
  rmSync(base, { recursive: true, force: true });
}
ms.sort((a, b) => a - b);
console.log(`runtime.call fs.patch: median ${ms[Math.floor(ms.length / 2)]?.toFixed(2)} ms over ${ROUNDS} rounds`);
const probe = (globalThis as unknown as { __probe?: Map<string, number[]> }).__probe;
for (const [k, v] of probe ?? []) {
  const s = v.slice(10).sort((a, b) => a - b);
  console.log(k.padEnd(24), (s[Math.floor(s.length / 2)] ?? 0).toFixed(3), 'ms median', (s.reduce((a, b) => a + b, 0) / s.length).toFixed(3), 'mean');
}
