import { mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from './src/runtime/index.js';
const rt = createRuntime({ workspace: 'bench/.work/search-corpus', stateDir: mkdtempSync(join(tmpdir(), 'p-')), grant: { tools: ['*'], effects: ['read'], read: ['**', '.'], write: [] } });
const ours: number[] = [], ref: number[] = [];
for (let i = 0; i < 15; i++) {
  let t = performance.now();
  await rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool: 'fs.search', arguments: { query: 'function' } });
  ours.push(performance.now() - t);
  t = performance.now();
  spawnSync('sh', ['-c', 'rg -n --column -F function | head -n 200 > /dev/null'], { cwd: 'bench/.work/search-corpus', stdio: 'ignore' });
  ref.push(performance.now() - t);
}
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]!.toFixed(1);
console.log('ours', med(ours), 'rg|head', med(ref), ours.map((x) => x.toFixed(0)).join(','), '|', ref.map((x) => x.toFixed(0)).join(','));
await rt.close();
