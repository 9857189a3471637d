// bench/session: a command in a persistent shell. shell.session `run` of `true` (one long-lived
// sandbox, a receipt per command, durability full) against shell.exec of `true` (a sandbox per
// command), and against the bare reference: a bash kept open on a pipe that runs `true` and
// echoes a marker (what any persistent shell costs at the least). Run with
//   npx tsx bench/session/main.ts        (N=100 by default)
// Everything is measured in this run, on this machine.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';

const N = Number(process.env['N'] ?? 100);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** The reference: one bash on a pipe; each command is `true` then a marker line. */
async function bareShell(): Promise<number[]> {
  const bash = spawn('bash', ['--noprofile', '--norc'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let buffered = '';
  let waiter: (() => void) | null = null;
  bash.stdout.on('data', (b: Buffer) => {
    buffered += b.toString();
    if (buffered.includes('__done__\n')) {
      buffered = '';
      waiter?.();
    }
  });
  const samples: number[] = [];
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      waiter = resolve;
      bash.stdin.write('true; echo __done__\n');
    });
    samples.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  bash.stdin.end();
  await new Promise((r) => bash.once('close', r));
  return samples;
}

async function main(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'tg-bench-session-'));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  execFileSync('git', ['init', '-q'], { cwd: ws });
  const rt = await createRuntime({ workspace: ws, stateDir: join(base, 'state') });
  const call = (tool: string, args: Record<string, unknown>): Promise<unknown> => rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'bench', tool, arguments: args });
  try {
    const bare = await bareShell();
    await call('shell.session', { command: 'true' }); // opens the session
    const session: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = process.hrtime.bigint();
      await call('shell.session', { command: 'true' });
      session.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const exec: number[] = [];
    for (let i = 0; i < N; i++) {
      const t = process.hrtime.bigint();
      await call('shell.exec', { argv: ['true'] });
      exec.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    // The same in a workspace that is not a git work tree: no `git status` around each command.
    const plainWs = join(base, 'plain');
    mkdirSync(plainWs);
    const plain = await createRuntime({ workspace: plainWs, stateDir: join(base, 'plain-state') });
    const noGit: number[] = [];
    try {
      await plain.call({ protocol_version: PROTOCOL_VERSION, task_id: 'bench', tool: 'shell.session', arguments: { command: 'true' } });
      for (let i = 0; i < N; i++) {
        const t = process.hrtime.bigint();
        await plain.call({ protocol_version: PROTOCOL_VERSION, task_id: 'bench', tool: 'shell.session', arguments: { command: 'true' } });
        noGit.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
    } finally {
      await plain.close();
    }
    const [b, s, e, g] = [median(bare), median(session), median(exec), median(noGit)];
    console.log(`N=${N} commands each, median ms per command (durability full, git workspace)`);
    console.log(`bare bash on a pipe (reference)   ${b.toFixed(2)} ms`);
    console.log(`shell.session run                 ${s.toFixed(2)} ms   ${(s / b).toFixed(1)}x the reference`);
    console.log(`shell.session run, no git         ${g.toFixed(2)} ms   ${(g / b).toFixed(1)}x the reference (without changed_paths' two git status runs)`);
    console.log(`shell.exec                        ${e.toFixed(2)} ms   ${(e / b).toFixed(1)}x the reference; shell.session is ${(e / s).toFixed(2)}x faster than shell.exec`);
  } finally {
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
