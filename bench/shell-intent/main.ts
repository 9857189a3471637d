// bench/shell-intent: what reading a shell line's intent costs, against the shell.exec call it
// is part of, both measured in this run. Run with
//   npx tsx bench/shell-intent/main.ts     (N=200 by default)
// The goal (issue 19): the parse costs under 5% of a shell.exec call.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { shellIntent } from '../../src/resources/index.js';
import { createShellExec } from '../../src/tools/shell-exec/tool.js';

const N = Number(process.env['N'] ?? 200);
const SCRIPTS: Record<string, string> = {
  'one command': 'pytest -q tests/unit',
  'a compound line': 'npm ci && npm test -- --reporter dot | tee out.txt; git status --short || true',
  'wrappers and sh -c': "env CI=1 timeout 600 nice -n 5 bash -c 'make -j4 && find . -name \"*.o\" -exec rm {} \\;'",
  'a 60-line script': Array.from({ length: 20 }, (_, i) => `if [ -f f${i} ]; then\n  cat f${i} | grep -v x > g${i}\nfi`).join('\n'),
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function main(): Promise<void> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-bench-intent-')));
  const ws = join(base, 'ws');
  const state = join(base, 'state');
  (await import('node:fs')).mkdirSync(ws);
  const rt = await createRuntime({ workspace: ws, stateDir: state, tools: [createShellExec() as never], grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] } });
  try {
    let seq = 0;
    const call = async (script: string): Promise<number> => {
      const t = performance.now();
      const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'bench', tool: 'shell.exec', arguments: { shell: 'bash', script }, idempotency_key: `k${seq++}` });
      if (r.status !== 'succeeded' && r.status !== 'failed') throw new Error(JSON.stringify(r.error));
      return performance.now() - t;
    };
    for (let i = 0; i < 10; i++) await call('true');
    await shellIntent('true', { cwd: ws });
    const callMs: number[] = [];
    for (let i = 0; i < Math.max(20, Math.round(N / 4)); i++) callMs.push(await call('true'));
    const callMedian = median(callMs);
    console.log(`shell.exec bash -c true, end to end with its durable receipt: median ${callMedian.toFixed(2)} ms (${callMs.length} calls)`);
    console.log('| script | intent median (ms) | share of the call |');
    console.log('|---|---|---|');
    for (const [name, script] of Object.entries(SCRIPTS)) {
      const xs: number[] = [];
      for (let i = 0; i < N; i++) {
        const t = performance.now();
        await shellIntent(script, { cwd: ws, writable: [ws] });
        xs.push(performance.now() - t);
      }
      const m = median(xs);
      console.log(`| ${name} | ${m.toFixed(3)} | ${((100 * m) / callMedian).toFixed(1)}% |`);
    }
  } finally {
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
