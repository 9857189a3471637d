// bench/profiles: what a compatibility profile adds to a call. The claude-code profile's Read
// (schema check, mapping, envelope, rendering) against the native fs.read of the same page, both
// through the same runtime, in process. Run with
//   npx tsx bench/profiles/main.ts        (N=2000 by default)
// Everything is measured in this run, on this machine; the ratio is against native fs.read.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';

const N = Number(process.env['N'] ?? 2000);

async function main(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'tg-bench-profiles-'));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  const lines: string[] = [];
  for (let i = 1; i <= 200; i++) lines.push(`line ${i} ${'x'.repeat(30)}`);
  writeFileSync(join(ws, 'a.txt'), `${lines.join('\n')}\n`);
  const rt = await createRuntime({ workspace: ws, stateDir: join(base, 'state'), profile: 'claude-code' });
  const profile = rt.profile;
  if (profile === null) throw new Error('no profile');
  try {
    const time = async (run: () => Promise<unknown>): Promise<number> => {
      for (let i = 0; i < 50; i++) await run();
      const t = process.hrtime.bigint();
      for (let i = 0; i < N; i++) await run();
      return N / (Number(process.hrtime.bigint() - t) / 1e9);
    };
    const native = await time(() => rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'bench-native', tool: 'fs.read', arguments: { path: 'a.txt', start_line: 1, max_lines: 200 } }));
    const viaProfile = await time(() => profile.call('Read', { file_path: join(ws, 'a.txt'), limit: 200 }, { task_id: 'bench-profile' }));
    console.log(`N=${N} sequential reads of a 200-line file, in process (durability full)`);
    console.log(`native fs.read (reference)   ${native.toFixed(0)} calls/s`);
    console.log(`claude-code Read             ${viaProfile.toFixed(0)} calls/s   ${(viaProfile / native).toFixed(2)}x the reference`);
  } finally {
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
