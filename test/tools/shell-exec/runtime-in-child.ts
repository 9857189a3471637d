// A runtime in its own Node process, mid shell.exec call, for a test to SIGKILL.
import { createRuntime } from '../../../src/runtime/index.js';
import { PROTOCOL_VERSION } from '../../../src/protocol/index.js';
import { createShellExec } from '../../../src/tools/shell-exec/tool.js';

const [workspace, state, marker] = process.argv.slice(2) as [string, string, string];
const rt = await createRuntime({
  workspace,
  stateDir: state,
  tools: [createShellExec() as never],
  grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] },
});
await rt.call({
  protocol_version: PROTOCOL_VERSION,
  task_id: 'crash',
  tool: 'shell.exec',
  idempotency_key: 'crash-1',
  arguments: { shell: 'sh', script: 'setsid sleep 1000 & sleep 1001 & wait', env: { set: { TG_MARKER: marker } } },
});
