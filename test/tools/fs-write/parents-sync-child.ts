// fs.write and fs.patch into directories they create, in a process of their own, for
// parents-sync.test.ts to trace with strace. Marks in the trace: traceMark.
import { createRuntime } from '../../../src/runtime/index.js';
import { traceMark } from '../../support/strace.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
const rt = await createRuntime({ workspace, stateDir: state });
const call = async (tool: string, args: Record<string, unknown>): Promise<void> => {
  const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool, arguments: args });
  if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
};
await call('fs.write', { path: 'warm.txt', content: 'w\n' });
traceMark('write-begins');
await call('fs.write', { path: 'x/y/z.txt', content: 'hello\n', create_parents: true });
traceMark('patch-begins');
await call('fs.patch', { unified_diff: '--- /dev/null\n+++ b/p/q/new.txt\n@@ -0,0 +1 @@\n+new\n' });
traceMark('end');
await rt.close();
