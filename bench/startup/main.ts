// bench/startup: how long a user waits before the first answer. `toolgate serve --stdio` from
// spawn to the first fs_read result (initialize, tools/list, one call), against
// @modelcontextprotocol/server-filesystem doing the same with read_file; and the one-shot
// `toolgate call fs.read` against `node -e` reading the file (the floor of any Node CLI). Rounds
// alternate the targets, so load drift hits each alike; medians and ranges of the per-round
// ratios are printed. Run: npm run bench -- startup [BENCH_ROUNDS, default 7]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 7);
const base = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const ws = join(base, 'ws');
mkdirSync(ws);
const file = ('x'.repeat(63) + '\n').repeat(64);
writeFileSync(join(ws, 'a.txt'), file);
// The command npm installs (package.json bin).
const CLI = join(import.meta.dirname, '../../dist/src/cli/bin.cjs');
const fsServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** Spawn to first tool result over stdio, in ms; the answer is checked. */
async function firstAnswer(args: string[], tool: string, toolArgs: Record<string, unknown>): Promise<number> {
  const t0 = performance.now();
  const client = new Client({ name: 'bench-startup', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }));
  try {
    await client.listTools();
    const r = await client.callTool({ name: tool, arguments: toolArgs });
    const text = JSON.stringify(r);
    if (r.isError === true || !text.includes('x'.repeat(63))) throw new Error(`${tool}: wrong answer ${text.slice(0, 200)}`);
    return performance.now() - t0;
  } finally {
    await client.close();
  }
}

/** A command's wall time in ms; it must exit 0. */
function run(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 300)}`);
  return ms;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const range = (xs: number[]): string => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

try {
  const rows: Record<string, number[]> = { serve: [], reference: [], call: [], floor: [] };
  for (let r = 0; r < ROUNDS + 1; r++) {
    // A fresh state dir each round: a user's first start (the store is created and migrated).
    const state = join(base, `state-${r}`);
    const serve = await firstAnswer([CLI, 'serve', '--stdio', '--workspace', ws, '--state-dir', state], 'fs_read', { path: 'a.txt' });
    const reference = await firstAnswer([fsServer, ws], 'read_file', { path: join(ws, 'a.txt') });
    const call = run([CLI, 'call', 'fs.read', '--args', '{"path":"a.txt"}', '--workspace', ws, '--state-dir', join(base, `call-${r}`)]);
    const floor = run(['-e', `process.stdout.write(require('node:fs').readFileSync(${JSON.stringify(join(ws, 'a.txt'))}, 'utf8'))`]);
    if (r === 0) continue; // warm-up: the page cache and tsx's own start
    rows['serve']?.push(serve);
    rows['reference']?.push(reference);
    rows['call']?.push(call);
    rows['floor']?.push(floor);
  }
  const ratios = (a: string, b: string): number[] => (rows[a] ?? []).map((x, i) => x / (rows[b]?.[i] ?? NaN));
  console.log(`bench/startup: spawn to first answer, ${ROUNDS} alternating rounds, node ${process.version}`);
  console.log(`  toolgate serve --stdio, first fs_read     ${median(rows['serve'] ?? []).toFixed(0).padStart(6)} ms`);
  console.log(`  server-filesystem, first read_file        ${median(rows['reference'] ?? []).toFixed(0).padStart(6)} ms`);
  console.log(`  toolgate call fs.read (one-shot CLI)      ${median(rows['call'] ?? []).toFixed(0).padStart(6)} ms`);
  console.log(`  node -e readFileSync (floor)              ${median(rows['floor'] ?? []).toFixed(0).padStart(6)} ms`);
  const s = ratios('serve', 'reference');
  const c = ratios('call', 'floor');
  console.log(`  serve / server-filesystem: ${median(s).toFixed(2)}x (${range(s)}); call / node floor: ${median(c).toFixed(2)}x (${range(c)})`);
} finally {
  rmSync(base, { recursive: true, force: true });
}
