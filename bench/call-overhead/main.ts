// In-process runtime.call of fs.read on a 4 KiB file, with durable receipts, against plain
// fs.readFile of the same file, measured in the same run. Run: npm run bench -- call-overhead
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';

const N = Number(process.env['BENCH_N'] ?? 20_000);
const base = mkdtempSync(join(tmpdir(), 'tg-bench-'));
const ws = join(base, 'ws');
mkdirSync(ws);
const file = join(ws, 'four.txt');
writeFileSync(file, ('0123456789abcdef'.repeat(4) + '\n').repeat(63).padEnd(4096, 'x'));

async function rate(label: string, n: number, inFlight: number, one: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(2_000, n); i++) await one(i); // warm up
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < n) await one(next++);
    }),
  );
  const perSec = n / ((performance.now() - t0) / 1000);
  console.log(`${label.padEnd(52)} ${perSec.toFixed(0).padStart(9)} /s   ${(1e6 / perSec).toFixed(1).padStart(7)} µs each`);
  return perSec;
}

try {
  console.log(`call-overhead: ${N} calls each, fs.read of a 4 KiB file, node ${process.version}\n`);
  const plainSync = await rate('fs.readFileSync (reference)', N, 1, async () => readFileSync(file, 'utf8'));
  const plain = await rate('fs.promises.readFile (reference)', N, 1, () => readFile(file, 'utf8'));
  const results: [string, number][] = [];
  for (const durability of ['normal', 'full'] as const) {
    const rt = await createRuntime({ workspace: ws, stateDir: join(base, `state-${durability}`), store: sqliteStore({ durability }) });
    const env = (i: number) => ({ protocol_version: 'tool-call.v1', task_id: `bench-${i % 16}`, tool: 'fs.read', arguments: { path: 'four.txt' } });
    const check = await rt.call(env(0));
    if (check.status !== 'succeeded') throw new Error(`fs.read failed: ${JSON.stringify(check.error)}`);
    const n = N;
    results.push([`runtime.call sequential, durability=${durability}`, await rate(`runtime.call fs.read, 1 in flight, durability=${durability}`, n, 1, (i) => rt.call(env(i)))]);
    results.push([`runtime.call 8 in flight, durability=${durability}`, await rate(`runtime.call fs.read, 8 in flight, durability=${durability}`, n, 8, (i) => rt.call(env(i)))]);
    results.push([`runtime.call 16 in flight, durability=${durability}`, await rate(`runtime.call fs.read, 16 in flight, durability=${durability}`, n, 16, (i) => rt.call(env(i)))]);
    const verify = await rt.store.verifyChain();
    if (!verify.ok) throw new Error('receipt chain broken during the benchmark');
    await rt.close();
  }
  console.log('\nratios (runtime.call time / fs.promises.readFile time; lower is better):');
  for (const [label, perSec] of results) console.log(`  ${label.padEnd(48)} ${(plain / perSec).toFixed(2)}x   (vs readFileSync ${(plainSync / perSec).toFixed(2)}x)`);
  const full = (label: string): number => results.find(([l]) => l === label)?.[1] ?? 0;
  console.log(`\ngoals (durability full): sequential >= 2,500 /s, here ${full('runtime.call sequential, durability=full').toFixed(0)}; 16 in flight >= 10,000 /s, here ${full('runtime.call 16 in flight, durability=full').toFixed(0)}`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
