// Calls/s of one and two Toolgate hosts (each its own process, workspace copy and state dir)
// on one PostgreSQL database (a private cluster this benchmark starts, like the tests'), and
// the same on SQLite (two hosts on one SQLite file: processes of one machine). fs.read of a
// 4 KiB file with a durable receipt, sequential and 8 in flight per host; 16 tasks per host.
// Prints calls/s and the ratios two hosts / one host and PostgreSQL / SQLite.
// Run: npm run bench -- multihost   (BENCH_N calls per host per measurement, default 1500)
import { fork, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Batch, BenchHostConfig } from './host.js';

interface ClusterModule {
  startPostgresCluster(opts?: { prefix?: string }): { url: string; stop(): void };
}

const N = Number(process.env['BENCH_N'] ?? 1_500);
const HOST = fileURLToPath(new URL('./host.ts', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'tg-bench-mh-'));
const template = join(base, 'template');
mkdirSync(template);
writeFileSync(join(template, 'four.txt'), ('0123456789abcdef'.repeat(4) + '\n').repeat(63).padEnd(4096, 'x'));

class BenchHost {
  readonly child: ChildProcess;
  readonly #replies: ((m: { kind: string; ms?: number; failed?: number }) => void)[] = [];

  constructor(config: BenchHostConfig) {
    this.child = fork(HOST, [JSON.stringify(config)], { execArgv: ['--import', 'tsx'], env: { ...process.env, TOOLGATE_HOST_ID: config.name }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: { kind: string }) => this.#replies.shift()?.(m));
  }

  next(): Promise<{ kind: string; ms?: number; failed?: number }> {
    return new Promise((resolve, reject) => {
      this.#replies.push(resolve);
      this.child.once('exit', (code) => reject(new Error(`bench host exited (${code})`)));
    });
  }

  async run(batch: Batch): Promise<{ ms: number; failed: number }> {
    const reply = this.next();
    this.child.send({ op: 'run', batch });
    const r = await reply;
    return { ms: r.ms ?? 0, failed: r.failed ?? 0 };
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ op: 'close' });
    await exited;
  }
}

async function startHosts(count: number, store: (i: number) => BenchHostConfig['store'], label: string): Promise<BenchHost[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const name = `${label}-${i}`;
      const workspace = join(base, `ws-${name}`);
      cpSync(template, workspace, { recursive: true });
      const h = new BenchHost({ workspace, stateDir: join(base, `state-${name}`), store: store(i), name });
      const ready = await h.next();
      if (ready.kind !== 'ready') throw new Error(`host ${name}: ${ready.kind}`);
      return h;
    }),
  );
}

/** Calls/s of all hosts together: every host runs N calls at once; the time is the slowest host's. */
async function measure(hosts: BenchHost[], inFlight: number, round: number): Promise<number> {
  await Promise.all(hosts.map((h) => h.run({ n: Math.min(200, N), inFlight, round: round + 1000 }))); // warm up: pins, pools, caches
  const t0 = performance.now();
  const runs = await Promise.all(hosts.map((h) => h.run({ n: N, inFlight, round })));
  const wall = performance.now() - t0;
  const failed = runs.reduce((s, r) => s + r.failed, 0);
  if (failed > 0) throw new Error(`${failed} calls did not succeed`);
  return (N * hosts.length) / (wall / 1000);
}

async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: serverUrl });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

const results = new Map<string, number>();
const line = (label: string, perSec: number): void => {
  results.set(label, perSec);
  console.log(`${label.padEnd(44)} ${perSec.toFixed(0).padStart(7)} calls/s   ${(1e6 / perSec).toFixed(0).padStart(6)} µs each`);
};

const clusterUrl = new URL('../../scripts/postgres-cluster.mjs', import.meta.url).href;
const { startPostgresCluster } = (await import(clusterUrl)) as ClusterModule;
const cluster = startPostgresCluster({ prefix: 'tg-bench-pg-' });
let round = 0;
try {
  console.log(`multihost: ${N} fs.read calls per host per measurement, durable receipts; node ${process.version}, ${cpus().length} cores, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  for (const backend of ['sqlite', 'postgres'] as const) {
    for (const count of [1, 2]) {
      const store = backend === 'postgres' ? { kind: 'postgres' as const, url: await createDatabase(cluster.url, `bench_${count}`) } : { kind: 'sqlite' as const, dir: join(base, `sqlite-${count}`) };
      const hosts = await startHosts(count, () => store, `${backend}-${count}`);
      try {
        for (const inFlight of [1, 8]) line(`${backend}, ${count} host${count > 1 ? 's' : ''}, ${inFlight === 1 ? 'sequential' : '8 in flight'}`, await measure(hosts, inFlight, round++));
      } finally {
        await Promise.all(hosts.map((h) => h.close()));
      }
    }
  }
  const r = (a: string, b: string): string => ((results.get(a) ?? 0) / (results.get(b) ?? 1)).toFixed(2);
  console.log('\nratios (calls/s; higher is better):');
  for (const mode of ['sequential', '8 in flight']) {
    console.log(`  ${mode.padEnd(12)} postgres 2 hosts / 1 host ${r(`postgres, 2 hosts, ${mode}`, `postgres, 1 host, ${mode}`)}x   sqlite 2 hosts / 1 host ${r(`sqlite, 2 hosts, ${mode}`, `sqlite, 1 host, ${mode}`)}x`);
    console.log(`  ${''.padEnd(12)} postgres 1 host / sqlite 1 host ${r(`postgres, 1 host, ${mode}`, `sqlite, 1 host, ${mode}`)}x   postgres 2 hosts / sqlite 2 hosts ${r(`postgres, 2 hosts, ${mode}`, `sqlite, 2 hosts, ${mode}`)}x`);
  }
  console.log(`\nload after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
} finally {
  cluster.stop();
  rmSync(base, { recursive: true, force: true });
}
