// One fs.write through a fresh runtime, bracketed by markers on stdout for strace to order against.
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';

const [workspace, state, durability] = process.argv.slice(2) as [string, string, 'default' | 'normal' | 'full'];
const rt = await createRuntime({ workspace, stateDir: state, ...(durability === 'default' ? {} : { store: sqliteStore({ durability }) }) });
process.stdout.write('CALL\n');
const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 't', tool: 'fs.write', arguments: { path: 'x.txt', content: 'hi' } });
process.stdout.write(`RETURNED ${r.status}\n`);
await rt.close();
