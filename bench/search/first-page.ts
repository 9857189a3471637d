// The first page of a common literal, N times through runtime.call, for profiling:
//   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/search/first-page.ts [N]
// Prints the median and spread of the wall time per page and this process's CPU time per call
// (children not included); FP_ARGS (JSON) replaces the arguments. The corpus of main.ts must exist.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRuntime } from '../../src/runtime/index.js';

const WORK = resolve('bench/.work/search-corpus');
const N = Number(process.argv[2] ?? 50);
const state = mkdtempSync(join(tmpdir(), 'bench-search-fp-'));
const rt = await createRuntime({ workspace: WORK, stateDir: state, grant: { tools: ['*'], effects: ['read'], read: ['**', '.'], write: [] } });
const times: number[] = [];
let cpu = { user: 0, system: 0 };
try {
  for (let i = 0; i < N + 3; i++) {
    if (i === 3) cpu = process.cpuUsage();
    const t = process.hrtime.bigint();
    const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: `fp${i}`, tool: 'fs.search', arguments: JSON.parse(process.env['FP_ARGS'] ?? '{"query":"function","max_results":200}') as Record<string, unknown> });
    if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
    if (i >= 3) times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  cpu = process.cpuUsage(cpu);
} finally {
  await rt.close();
  rmSync(state, { recursive: true, force: true });
}
times.sort((a, b) => a - b);
const q = (p: number): string => (times[Math.floor(p * (times.length - 1))] as number).toFixed(1);
console.log(`x${N}: median ${q(0.5)} ms, p10 ${q(0.1)}, p90 ${q(0.9)}; this process's CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(1)} ms a call`);
