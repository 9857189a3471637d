// GETs each URL given through a fresh runtime whose resolver answers `tls.test` with the
// provider's loopback address, and prints the receipts as one JSON line. Run by tls.test.ts with
// NODE_EXTRA_CA_CERTS naming the test's own CA (Node reads it only at start, hence a child).
import { createRuntime } from '../../../src/runtime/index.js';
import { PROTOCOL_VERSION } from '../../../src/protocol/index.js';
import { HOST_POLICY, PROVIDER_ADDRESS } from './harness.js';

const [workspace, state, ...urls] = process.argv.slice(2) as [string, string, ...string[]];
const rt = await createRuntime({
  workspace,
  stateDir: state,
  grant: { tools: ['*'], effects: ['read'], hosts: ['tls.test'], private_addresses: [PROVIDER_ADDRESS] } as never,
  policies: [{ name: 'http.cedar', text: HOST_POLICY }],
  resolver: { resolve: async (host) => (host === 'tls.test' ? [{ address: PROVIDER_ADDRESS, family: 4 }] : []) },
});
const receipts = [];
for (const url of urls) receipts.push(await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'task-tls', tool: 'http.request', arguments: { method: 'GET', url } }));
process.stdout.write(`${JSON.stringify(receipts)}\n`);
await rt.close();
