// Toolgate over stdio for the bench: `toolgate-server.ts WORKSPACE STATE_DIR`.
import { createRuntime } from '../../src/runtime/index.js';
import { serveMcpStdio } from '../../src/server/index.js';

const [workspace, stateDir] = process.argv.slice(2);
if (workspace === undefined || stateDir === undefined) throw new TypeError('usage: toolgate-server.ts WORKSPACE STATE_DIR');
const rt = createRuntime({ workspace, stateDir });
const serving = serveMcpStdio(rt, { taskId: 'bench-mcp' });
await serving.closed;
await rt.close();
