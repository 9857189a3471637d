// What telemetry costs a call: runtime.call of fs.read (4 KiB, SQLite durability normal, one in
// flight) with no tracer provider (the global no-op: the default), with every span recorded and
// batched (the exporter drops them: no network in the measure), and with spans plus the
// Prometheus observer; rounds interleaved so a loaded machine's drift hits each alike. Then the
// no-op path alone (the stage clock and the one no-op span), in ns per call.
// Run: npm run bench -- telemetry
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createRuntime, STAGES, type Runtime } from '../../src/runtime/index.js';
import { StageClock } from '../../src/runtime/stage-clock.js';
import { traceCall } from '../../src/runtime/trace.js';
import { receiptSkeleton, type AttemptId, type TaskId } from '../../src/protocol/index.js';
import { sqliteStore } from '../../src/store/index.js';
import { ToolgateMetrics } from '../../src/telemetry/index.js';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
const PER_ROUND = Number(process.env['BENCH_N'] ?? 1_000);
const base = mkdtempSync(join(tmpdir(), 'tg-bench-tel-'));
const ws = join(base, 'ws');
mkdirSync(ws);
writeFileSync(join(ws, 'four.txt'), ('0123456789abcdef'.repeat(4) + '\n').repeat(63).padEnd(4096, 'x'));

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};
const envelope = (i: number) => ({ protocol_version: 'tool-call.v1', task_id: `bench-${i % 16}`, tool: 'fs.read', arguments: { path: 'four.txt' } });

/** µs per call over n sequential calls. */
async function perCall(rt: Runtime, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await rt.call(envelope(i));
  return ((performance.now() - t0) * 1000) / n;
}

let exported = 0;
const drop: SpanExporter = {
  export: (spans: ReadableSpan[], done) => {
    exported += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => {},
};
const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(drop, { maxQueueSize: 65_536, maxExportBatchSize: 4_096, scheduledDelayMillis: 200 })] });
const open = (name: string, extra: object) => createRuntime({ workspace: ws, stateDir: join(base, name), store: sqliteStore({ durability: 'normal' }), ...extra });
const configs: [string, Runtime][] = [
  ['no tracer provider (default: global no-op)', await open('off', {})],
  ['spans recorded and batched', await open('spans', { tracerProvider: provider })],
  ['spans + Prometheus observer', await open('both', { tracerProvider: provider, observers: [new ToolgateMetrics()] })],
];
try {
  console.log(`telemetry: ${ROUNDS} rounds × ${PER_ROUND} sequential fs.read calls per configuration, node ${process.version}\n`);
  for (const [, rt] of configs) await perCall(rt, Math.min(1_000, PER_ROUND)); // warm up
  const times = configs.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) for (const [i, [, rt]] of configs.entries()) times[i]?.push(await perCall(rt, PER_ROUND));
  const off = median(times[0] ?? []);
  for (const [i, [label]] of configs.entries()) {
    const t = times[i] ?? [];
    console.log(`${label.padEnd(44)} median ${median(t).toFixed(1).padStart(7)} µs/call  (rounds ${Math.min(...t).toFixed(0)}–${Math.max(...t).toFixed(0)})  ×${(median(t) / off).toFixed(3)} of no provider`);
  }
  await provider.forceFlush();
  if (exported === 0) throw new Error('no span was exported');

  // The no-op path alone: what every call pays when nothing is configured.
  const noop = trace.getTracerProvider().getTracer('toolgate');
  const receipt = { ...receiptSkeleton('t' as TaskId, 'a' as AttemptId, new Date().toISOString()), tool: 'fs.read', status: 'succeeded' as const };
  const M = 200_000;
  const t0 = performance.now();
  for (let i = 0; i < M; i++) {
    const clock = new StageClock();
    for (const s of STAGES) clock.enter(s);
    clock.leave();
    traceCall(noop, ROOT_CONTEXT, { receipt, stages: clock.times, start: clock.start, end: performance.now() }, [], null);
  }
  const ns = ((performance.now() - t0) * 1e6) / M;
  console.log(`\nno-op path (stage clock of ${STAGES.length} stages + one no-op span): ${ns.toFixed(0)} ns per call = ${((ns / 1000 / off) * 100).toFixed(3)}% of a call here`);
} finally {
  for (const [, rt] of configs) await rt.close();
  await provider.shutdown();
  rmSync(base, { recursive: true, force: true });
}
