// bench/sweep: the walk every runtime makes when it opens, looking for the temporary entries a
// crashed Toolgate left in the workspace (src/resources/paths/sweep-temps.ts). It runs while the
// first calls do, over the whole tree, so its CPU is taken from them. Measured against
// `find ROOT -name '.tg-*'` over the same tree, in alternating rounds; each round plants 20
// ownerless temporary files first (the sweep removes them) so that the removal is measured too.
// The tree: bench/.work/search-corpus when bench/search has built it, else 30,000 files made here.
// Run: npm run bench -- sweep [BENCH_ROUNDS, default 7]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Workspace, sweepWorkspaceTemps } from '../../src/resources/index.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
const corpus = resolve('bench/.work/search-corpus');
let made: string | null = null;
let root = corpus;
if (!existsSync(join(corpus, '.corpus-ready'))) {
  made = mkdtempSync(join(tmpdir(), 'bench-sweep-'));
  root = made;
  for (let d = 0; d < 1_500; d++) {
    const dir = join(root, `pkg${d % 30}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(dir, `f${f}.ts`), `export const v${f} = ${d};\n`);
  }
}

function plant(): void {
  for (let i = 0; i < 20; i++) writeFileSync(join(root, `.tg-${(0xabc000 + i).toString(16).padStart(16, '0')}.tmp`), 'left by a crash\n');
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const ws = Workspace.open(root);
try {
  const ours: number[] = [];
  const cpu: number[] = [];
  const ref: number[] = [];
  const ratios: number[] = [];
  for (let round = -1; round < ROUNDS; round++) {
    plant();
    const c0 = process.cpuUsage();
    let t = performance.now();
    const removed = await sweepWorkspaceTemps(ws);
    const sweepMs = performance.now() - t;
    const c = process.cpuUsage(c0);
    if (removed.length !== 20) throw new Error(`the sweep removed ${removed.length} of the 20 planted entries`);
    t = performance.now();
    const found = spawnSync('find', [root, '-name', '.tg-*'], { encoding: 'utf8' });
    const findMs = performance.now() - t;
    if (found.status !== 0) throw new Error(`find failed: ${found.stderr}`);
    if (round < 0) continue; // warm-up: the tree into the page cache
    ours.push(sweepMs);
    cpu.push((c.user + c.system) / 1000);
    ref.push(findMs);
    ratios.push(sweepMs / findMs);
  }
  const entries = Number(spawnSync('sh', ['-c', `find "${root}" -path "${root}/.git" -prune -o -print | wc -l`], { encoding: 'utf8' }).stdout.trim()) - 1;
  console.log(`tree: ${root} (${entries} entries outside .git); median of ${ROUNDS} rounds, node ${process.version}`);
  console.log(`sweep      median ${median(ours).toFixed(1)} ms wall, ${median(cpu).toFixed(1)} ms CPU (all threads)`);
  console.log(`find       median ${median(ref).toFixed(1)} ms (with .git, which the sweep skips)`);
  console.log(`ratio sweep / find = ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`);
} finally {
  ws.close();
  if (made !== null) rmSync(made, { recursive: true, force: true });
}
