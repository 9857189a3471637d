// A runtime in its own process running a keyed shell.exec that does not end, for a test to SIGKILL.
import { createRuntime } from '../../src/runtime/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
const rt = await createRuntime({ workspace, stateDir: state, grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] } });
await rt.call({
  protocol_version: PROTOCOL_VERSION,
  task_id: 'ops',
  tool: 'shell.exec',
  idempotency_key: 'deploy-1',
  arguments: { shell: 'sh', script: 'echo started > started.txt; sleep 1000' },
});
