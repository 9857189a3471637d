// A runtime in its own process that makes one call with TOOLGATE_FAILPOINT armed (by the parent,
// in this process's environment): the failpoint SIGKILLs it at its stage boundary. If the call
// returns instead, the child prints its receipt's status and exits 0 (the parent then fails).
import { createRuntime } from '../../src/runtime/index.js';

const [workspace, state, envelopeJson] = process.argv.slice(2) as [string, string, string];
const rt = await createRuntime({ workspace, stateDir: state, grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] } });
const receipt = await rt.call(JSON.parse(envelopeJson));
process.stdout.write(`NOT KILLED: ${receipt.status} ${JSON.stringify(receipt.error)}\n`);
await rt.close();
