// The first page of a common literal a moment after a change outside Toolgate (a new file made
// 1.3 s before: the kept candidate list is dropped and git lists the tree again), then the next
// page on the kept list; 12 rounds. Run: npx tsx bench/search/relist.ts (the corpus of main.ts
// must exist). Prints the median of each; there is no reference here: rg and git grep keep no list.
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRuntime } from '../../src/runtime/index.js';

const WORK = resolve('bench/.work/search-corpus');
const ROUNDS = 12;
const state = mkdtempSync(join(tmpdir(), 'bench-search-relist-'));
const rt = await createRuntime({ workspace: WORK, stateDir: state, grant: { tools: ['*'], effects: ['read'], read: ['**', '.'], write: [] } });
const page = async (): Promise<number> => {
  const t = performance.now();
  const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 'relist', tool: 'fs.search', arguments: { query: 'function', max_results: 200 } });
  if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
  return performance.now() - t;
};
const afterChange: number[] = [];
const kept: number[] = [];
try {
  for (let i = 0; i < ROUNDS; i++) {
    const file = join(WORK, 'npm', `relist-${i}.txt`);
    writeFileSync(file, 'x\n');
    await sleep(1300); // past the racy margin: the new list is kept
    afterChange.push(await page());
    await sleep(300); // its inotify watches are set up meanwhile
    kept.push(await page());
    unlinkSync(file);
  }
} finally {
  await rt.close();
  rmSync(state, { recursive: true, force: true });
}
const med = (a: number[]): string => ([...a].sort((x, y) => x - y)[a.length >> 1] as number).toFixed(1);
console.log(`first page after a change (relisted): median ${med(afterChange)} ms; the next, on the kept list: ${med(kept)} ms (${ROUNDS} rounds)`);
