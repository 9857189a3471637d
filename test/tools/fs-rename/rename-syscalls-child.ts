// Runs fs.rename a few times in its own process, for atomic.test.ts to trace with strace.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../../src/runtime/index.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
writeFileSync(join(workspace, 'a'), 'payload\n');
const rt = await createRuntime({ workspace, stateDir: state });
for (let i = 0; i < 10; i++) {
  const [from, to] = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
  const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool: 'fs.rename', arguments: { from, to } });
  if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
}
await rt.close();
