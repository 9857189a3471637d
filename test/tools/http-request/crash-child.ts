// One http.request POST through a fresh runtime over the given dirs; the parent kills this
// process while the provider holds the answer (after markSent, before any receipt).
import { createRuntime } from '../../../src/runtime/index.js';
import { PROTOCOL_VERSION } from '../../../src/protocol/index.js';
import { connectorConfig, grantFor, HOST_POLICY } from './harness.js';

const [workspace, state, url, key] = process.argv.slice(2) as [string, string, string, string];
const rt = await createRuntime({ workspace, stateDir: state, grant: grantFor() as never, policies: [{ name: 'http.cedar', text: HOST_POLICY }], connectors: { http: connectorConfig() } });
process.stdout.write('CALLING\n');
const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'task-crash', tool: 'http.request', arguments: { method: 'POST', url, body: 'once' }, idempotency_key: key });
process.stdout.write(`RETURNED ${r.status}\n`);
await rt.close();
