// bench/receipts-scale: does a call cost more when the store already holds a million receipts?
// The cost of runtime.call fs.read (4 KiB, durability full, 1 and 16 in flight) with 10^3
// receipts stored and with a second store filled to 10^6 (BENCH_RECEIPTS) with receipts of the
// same shape over 1,000 tasks, in the same run. The two stores are measured in alternating
// rounds (BENCH_ROUNDS, default 5), and the ratio is taken per round: on a shared machine the load
// drifts over minutes, and a 10^3 figure taken before a long fill and a 10^6 figure after it
// would measure the drift. Also prints the database's bytes per receipt.
// Run: npm run bench -- receipts-scale. BENCH_DIR keeps the stores in that folder (filled once, then
// reused: fill on a busy machine with BENCH_FILL_ONLY=1, measure later when it is quiet).
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';
import type { Receipt, TaskId } from '../../src/protocol/index.js';

const TARGET = Number(process.env['BENCH_RECEIPTS'] ?? 1_000_000);
const CALLS = Number(process.env['BENCH_N'] ?? 2_000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const kept = process.env['BENCH_DIR'];
const base = kept ?? mkdtempSync(join(tmpdir(), 'tg-bench-scale-'));
const ws = join(base, 'ws');
mkdirSync(ws, { recursive: true });
writeFileSync(join(ws, 'four.txt'), ('0123456789abcdef'.repeat(4) + '\n').repeat(63).padEnd(4096, 'x'));
const small = join(base, 'state-small');
const big = join(base, 'state-big');
// Each round measures a fresh copy of the small store: the calls measured add about 5,000
// receipts a round, and a kept store (BENCH_DIR) reused over runs had grown to 3·10^5.
const smallRun = join(base, 'state-small-run');
const env = (i: number): Record<string, unknown> => ({ protocol_version: 'tool-call.v1', task_id: `bench-${i % 16}`, tool: 'fs.read', arguments: { path: 'four.txt' } });

async function rate(rt: Runtime, inFlight: number): Promise<number> {
  for (let i = 0; i < 300; i++) await rt.call(env(i));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < CALLS) {
        const r = await rt.call(env(next++));
        if (r.status !== 'succeeded') throw new Error(`fs.read failed: ${JSON.stringify(r.error)}`);
      }
    }),
  );
  return CALLS / ((performance.now() - t0) / 1000);
}

async function measure(state: string, label: string): Promise<[number, number]> {
  const rt = await createRuntime({ workspace: ws, stateDir: state, store: sqliteStore({ durability: 'full' }) });
  try {
    const seq = await rate(rt, 1);
    const par = await rate(rt, 16);
    const n = (await rt.store.verifyChain('bench-0' as TaskId)).receipts;
    console.log(`  ${label.padEnd(40)} ${seq.toFixed(0).padStart(6)} calls/s sequential  ${par.toFixed(0).padStart(6)} calls/s with 16 in flight  (task bench-0 holds ${n})`);
    return [seq, par];
  } finally {
    await rt.close();
  }
}

/**
 * Adds `to` receipts: copies of a real fs.read receipt body over 1,000 tasks, group-committed,
 * started 1 ms apart and ending now, as a store that grew over time holds them (a receipt's id
 * begins with its start time, docs/protocol.md#receipt).
 */
async function fill(state: string, to: number): Promise<void> {
  const rt = await createRuntime({ workspace: ws, stateDir: state, store: sqliteStore({ durability: 'normal' }) });
  try {
    // The task's second receipt: its first also records the host tools (about 1 KB), which a
    // task's later receipts do not carry.
    await rt.call(env(0));
    const sample = (await rt.call(env(0))) as Receipt;
    const { receipt_id: _i, digest: _d, replay: _r, prev_receipt_digest: _p, ...body } = sample;
    const { content: _c, ...result } = sample.result as Record<string, unknown>;
    let have = 0;
    const start = Date.now();
    const t0 = performance.now();
    while (have < to) {
      const batch = Math.min(2_000, to - have);
      await Promise.all(
        Array.from({ length: batch }, (_, k) => {
          const started_at = new Date(start - (to - have - k)).toISOString();
          return rt.store.commit({ body: { ...body, result, started_at, finished_at: started_at, task_id: `fill-${(have + k) % 1000}` as TaskId, attempt_id: body.attempt_id } });
        }),
      );
      have += batch;
      if (have % 100_000 < 2_000) process.stderr.write(`  filled ${have} receipts (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
    }
  } finally {
    await rt.close();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const range = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

try {
  console.log(`bench/receipts-scale: runtime.call fs.read of 4 KiB, durability full, ${CALLS} calls per measurement, ${ROUNDS} alternating rounds, node ${process.version}`);
  const filled = join(base, `filled-${TARGET}`);
  if (!existsSync(filled)) {
    await fill(small, 1_000);
    await fill(big, TARGET);
    writeFileSync(filled, '');
  }
  if (kept !== undefined && process.env['BENCH_FILL_ONLY'] === '1') process.exit(0);
  const bytes = statSync(join(big, 'toolgate.db')).size + (() => { try { return statSync(join(big, 'toolgate.db-wal')).size; } catch { return 0; } })();
  const seqRatios: number[] = [];
  const parRatios: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    rmSync(smallRun, { recursive: true, force: true });
    cpSync(small, smallRun, { recursive: true });
    const [seqSmall, parSmall] = await measure(smallRun, `round ${r}: ~10^3 receipts stored`);
    const [seqBig, parBig] = await measure(big, `round ${r}: ${TARGET.toExponential(0)} receipts stored`);
    seqRatios.push(seqSmall / seqBig);
    parRatios.push(parSmall / parBig);
  }
  console.log(`  database: ${(bytes / 1e6).toFixed(0)} MB, ${(bytes / TARGET).toFixed(0)} bytes per receipt`);
  console.log(`  cost at ${TARGET.toExponential(0)} / cost at 10^3, median (range) of ${ROUNDS} rounds: ${median(seqRatios).toFixed(2)}x (${range(seqRatios)}) sequential, ${median(parRatios).toFixed(2)}x (${range(parRatios)}) with 16 in flight (goal <= 1.1x)`);
} finally {
  if (kept === undefined) rmSync(base, { recursive: true, force: true });
  else rmSync(smallRun, { recursive: true, force: true });
}
