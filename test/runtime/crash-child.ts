// A runtime in its own process that runs one call and SIGKILLs itself at a chosen point:
//   commit       after the effect, when the receipt is about to be committed;
//   torn-rename  after fs.rename recorded its intent and linked the new name, before unlink.
// The kill is real (the process dies with no cleanup); only the moment is chosen.
import { linkSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../src/runtime/index.js';

const [workspace, state, envelopeJson, point] = process.argv.slice(2) as [string, string, string, 'commit' | 'torn-rename'];
const envelope = JSON.parse(envelopeJson) as { arguments: { from?: string; to?: string } };
const rt = await createRuntime({ workspace, stateDir: state, grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] } });
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};
const store = rt.store as unknown as Record<string, unknown>;
if (point === 'commit') {
  store['commit'] = die;
} else {
  const markSent = (store['markSent'] as (...a: unknown[]) => Promise<void>).bind(rt.store);
  store['markSent'] = async (...a: unknown[]) => {
    await markSent(...a);
    linkSync(join(workspace, envelope.arguments.from as string), join(workspace, envelope.arguments.to as string));
    die();
  };
}
await rt.call(envelope);
process.stdout.write('NOT KILLED\n');
