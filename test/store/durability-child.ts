// One fs.write through a fresh runtime, bracketed by markers on stdout for strace to order against.
import { mkdirSync } from 'node:fs';
import { createRuntime, loadTokenKey } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';

const [workspace, state, durability] = process.argv.slice(2) as [string, string, 'default' | 'normal' | 'full' | 'key-file'];
if (durability === 'key-file') {
  // The state dir's own key, as a runtime on a store without shared keys loads it.
  mkdirSync(state, { recursive: true, mode: 0o700 });
  process.stdout.write('CALL\n');
  process.stdout.write(`KEY ${loadTokenKey(state).length}\n`);
  process.exit(0);
}
const rt = await createRuntime({ workspace, stateDir: state, ...(durability === 'default' ? {} : { store: sqliteStore({ durability }) }) });
process.stdout.write('CALL\n');
const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 't', tool: 'fs.write', arguments: { path: 'x.txt', content: 'hi' } });
process.stdout.write(`RETURNED ${r.status}\n`);
await rt.close();
