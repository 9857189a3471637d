// A runtime in its own process that makes one call with TOOLGATE_FAILPOINT armed (by the parent,
// in this process's environment): the failpoint SIGKILLs it at its stage boundary. If the call
// returns instead, the child prints its receipt's status and exits 0: the parent fails the case
// unless its table says the tool does not pass that failpoint.
// The last argument chooses the runtime's options (failpoint-options.ts): a kind (`fs`, `http`)
// or a JSON RuntimeSpec (a kind, a PostgreSQL URL, an upstream's data dir).
import { createRuntime } from '../../src/runtime/index.js';
import { failpointRuntimeOptions, type RuntimeKind, type RuntimeSpec } from './failpoint-options.js';

const [workspace, state, envelopeJson, spec] = process.argv.slice(2) as [string, string, string, string];
const options = spec.startsWith('{') ? (JSON.parse(spec) as RuntimeSpec) : (spec as RuntimeKind);
const rt = await createRuntime({ workspace, stateDir: state, ...failpointRuntimeOptions(options) });
const receipt = await rt.call(JSON.parse(envelopeJson));
process.stdout.write(`NOT KILLED: ${receipt.status} ${JSON.stringify(receipt.error)}\n`);
await rt.close();
