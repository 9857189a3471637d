// One git.push through a fresh runtime over the given dirs; the parent kills this process while
// the daemon holds (or swallows) the push: after markSent, before any receipt.
import { createRuntime } from '../../../src/runtime/index.js';
import { PROTOCOL_VERSION } from '../../../src/protocol/index.js';
import { grant, POLICY } from './harness.js';

const [workspace, state, url, key] = process.argv.slice(2) as [string, string, string, string];
const rt = await createRuntime({ workspace, stateDir: state, grant: grant() as never, policies: [{ name: 'git.cedar', text: POLICY }] });
process.stdout.write('CALLING\n');
const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'task-crash', tool: 'git.push', arguments: { remote: url, ref: 'main' }, idempotency_key: key });
process.stdout.write(`RETURNED ${r.status}\n`);
await rt.close();
