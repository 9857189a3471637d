// A runtime in its own process that makes one call with TOOLGATE_FAILPOINT armed (by the parent,
// in this process's environment): the failpoint SIGKILLs it at its stage boundary. If the call
// returns instead, the child prints its receipt's status and exits 0 (the parent then fails).
// `kind` chooses the runtime's options: `fs` (workspace tools and shell.exec) or `http` (the
// test provider's grant, policy and connector, as in test/tools/http-request).
import { createRuntime } from '../../src/runtime/index.js';
import { failpointRuntimeOptions } from './failpoint-options.js';

const [workspace, state, envelopeJson, kind] = process.argv.slice(2) as [string, string, string, 'fs' | 'http'];
const rt = await createRuntime({ workspace, stateDir: state, ...failpointRuntimeOptions(kind) });
const receipt = await rt.call(JSON.parse(envelopeJson));
process.stdout.write(`NOT KILLED: ${receipt.status} ${JSON.stringify(receipt.error)}\n`);
await rt.close();
