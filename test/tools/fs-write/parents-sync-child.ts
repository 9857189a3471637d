// fs.write and fs.patch into directories they create, in a process of their own, for
// parents-sync.test.ts to trace with strace. Markers in the trace: failing opens of /dev/null/….
import { closeSync, openSync } from 'node:fs';
import { createRuntime } from '../../../src/runtime/index.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
const mark = (name: string): void => {
  try {
    closeSync(openSync(`/dev/null/${name}`, 'r'));
  } catch {
    // ENOTDIR, as meant
  }
};
const rt = await createRuntime({ workspace, stateDir: state });
const call = async (tool: string, args: Record<string, unknown>): Promise<void> => {
  const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool, arguments: args });
  if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
};
await call('fs.write', { path: 'warm.txt', content: 'w\n' });
mark('write-begins');
await call('fs.write', { path: 'x/y/z.txt', content: 'hello\n', create_parents: true });
mark('patch-begins');
await call('fs.patch', { unified_diff: '--- /dev/null\n+++ b/p/q/new.txt\n@@ -0,0 +1 @@\n+new\n' });
mark('end');
await rt.close();
