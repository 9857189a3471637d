// bench/mcp: fs_read of a 4 KiB file over stdio, against @modelcontextprotocol/server-filesystem's
// read_file and a bare SDK echo tool, all measured in this run with the same client.
// Run: npx tsx bench/mcp/main.ts [--sequential N] [--parallel N] [--in-flight K]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const { values } = parseArgs({
  options: {
    sequential: { type: 'string', default: '1000' },
    parallel: { type: 'string', default: '2000' },
    'in-flight': { type: 'string', default: '8' },
  },
});
const SEQUENTIAL = Number(values.sequential);
const PARALLEL = Number(values.parallel);
const IN_FLIGHT = Number(values['in-flight']);
const WARMUP = 100;

interface Target {
  readonly label: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  /** Checks one answer, so a fast wrong answer does not count. */
  readonly check: (r: Awaited<ReturnType<Client['callTool']>>) => void;
}

interface Measured {
  readonly sequentialPerSec: number;
  readonly parallelPerSec: number;
}

async function measure(t: Target): Promise<Measured> {
  const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: t.command, args: [...t.args], stderr: 'ignore' }));
  try {
    const call = async (): Promise<void> => {
      const r = await client.callTool({ name: t.tool, arguments: t.arguments });
      t.check(r);
    };
    for (let i = 0; i < WARMUP; i++) await call();
    let start = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) await call();
    const sequentialPerSec = SEQUENTIAL / ((performance.now() - start) / 1000);
    let next = 0;
    start = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next++ < PARALLEL) await call();
      }),
    );
    const parallelPerSec = PARALLEL / ((performance.now() - start) / 1000);
    return { sequentialPerSec, parallelPerSec };
  } finally {
    await client.close();
  }
}

const base = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
try {
  const workspace = join(base, 'ws');
  mkdirSync(workspace);
  const content = 'x'.repeat(63) + '\n';
  const file = content.repeat(64); // 4 KiB
  writeFileSync(join(workspace, 'a.txt'), file);
  const here = import.meta.dirname;
  const fsServer = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
  const textOf = (r: Awaited<ReturnType<Client['callTool']>>): string => ((r.content as { text?: string }[])[0]?.text ?? '');

  const serve = (form: string, config?: string): string[] => [join(here, '../../dist/src/cli/bin.cjs'), 'serve', '--stdio', '--workspace', workspace, '--state-dir', join(base, `state-${form}${config ? '-cfg' : ''}`), '--result-form', form, ...(config ? ['--config', config] : [])];
  // Where the time goes: the same server with durability normal (no fsync per commit). Not the goal's figure.
  const normalConfig = join(base, 'durability-normal.json');
  writeFileSync(normalConfig, JSON.stringify({ durability: 'normal' }));
  const structuredCheck = (label: string) => (r: Awaited<ReturnType<Client['callTool']>>): void => {
    if ((r.structuredContent as { content?: string } | undefined)?.content !== file) throw new Error(`${label}: wrong answer ${JSON.stringify(r).slice(0, 200)}`);
  };
  const targets: Target[] = [
    {
      // What an SDK client (any client not known to prefer structuredContent) gets by default.
      label: 'toolgate fs_read (both)',
      command: process.execPath,
      // The command a user runs (the built bin), not a TypeScript stand-in.
      args: serve('both'),
      tool: 'fs_read',
      arguments: { path: 'a.txt' },
      check: structuredCheck('toolgate both'),
    },
    {
      label: 'toolgate fs_read (structured)',
      command: process.execPath,
      args: serve('structured'),
      tool: 'fs_read',
      arguments: { path: 'a.txt' },
      check: structuredCheck('toolgate structured'),
    },
    {
      // What Claude Code and Codex get (auto): the numbered page as text, no structuredContent.
      label: 'toolgate fs_read (text)',
      command: process.execPath,
      args: serve('text'),
      tool: 'fs_read',
      arguments: { path: 'a.txt' },
      check: (r) => {
        if (r.structuredContent !== undefined || !textOf(r).includes(`    64\t${'x'.repeat(63)}`)) throw new Error(`toolgate text: wrong answer ${JSON.stringify(r).slice(0, 200)}`);
      },
    },
    {
      label: 'toolgate fs_read (text, normal)',
      command: process.execPath,
      args: serve('text', normalConfig),
      tool: 'fs_read',
      arguments: { path: 'a.txt' },
      check: (r) => {
        if (r.structuredContent !== undefined || !textOf(r).includes(`    64\t${'x'.repeat(63)}`)) throw new Error(`toolgate text normal: wrong answer ${JSON.stringify(r).slice(0, 200)}`);
      },
    },
    {
      label: 'server-filesystem read_file',
      command: process.execPath,
      args: [fsServer, workspace],
      tool: 'read_file',
      arguments: { path: join(workspace, 'a.txt') },
      check: (r) => {
        if (textOf(r) !== file) throw new Error('server-filesystem: wrong answer');
      },
    },
    {
      label: 'SDK echo tool',
      command: process.execPath,
      args: ['--import', 'tsx', join(here, 'echo-server.ts')],
      tool: 'echo',
      arguments: { text: 'hello' },
      check: (r) => {
        if (textOf(r) !== 'hello') throw new Error('echo: wrong answer');
      },
    },
  ];

  const results = new Map<string, Measured>();
  for (const t of targets) results.set(t.label, await measure(t));
  const ref = results.get('server-filesystem read_file');
  const echo = results.get('SDK echo tool');
  if (!ref || !echo) throw new Error('missing measurement');

  console.log(`bench/mcp: 4 KiB file over stdio, v2 client (2025-11-25), ${SEQUENTIAL} sequential calls, ${PARALLEL} with ${IN_FLIGHT} in flight`);
  for (const [label, m] of results) {
    console.log(`  ${label.padEnd(30)} ${m.sequentialPerSec.toFixed(0).padStart(6)} calls/s sequential   ${m.parallelPerSec.toFixed(0).padStart(6)} calls/s with ${IN_FLIGHT} in flight`);
  }
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`;
  for (const [label, m] of results) {
    if (!label.startsWith('toolgate')) continue;
    const goal = label.endsWith('normal)') ? 'durability normal, where the time goes: not the goal' : 'goal >= 1.0x / >= 1.5x';
    console.log(`  ${label.padEnd(30)} / server-filesystem: ${ratio(m.sequentialPerSec, ref.sequentialPerSec)} sequential, ${ratio(m.parallelPerSec, ref.parallelPerSec)} in flight (${goal}); / echo floor: ${ratio(m.sequentialPerSec, echo.sequentialPerSec)}, ${ratio(m.parallelPerSec, echo.parallelPerSec)}`);
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
