// Deletes a tree with fs.delete and restores it with fs.undo in its own process, for
// tree-restore.test.ts to trace with strace.
import { closeSync, mkdirSync, openSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../../src/runtime/index.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
for (let i = 0; i < 30; i++) {
  mkdirSync(join(workspace, 'tree', `d${i % 3}`), { recursive: true });
  writeFileSync(join(workspace, 'tree', `d${i % 3}`, `f${i}`), `file ${i}\n`);
}
symlinkSync('d0/f0', join(workspace, 'tree', 'link'));
const rt = await createRuntime({ workspace, stateDir: state });
const call = (tool: string, args: Record<string, unknown>) => rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool, arguments: args });
const d = await call('fs.delete', { path: 'tree', recursive: true });
if (d.status !== 'succeeded') throw new Error(JSON.stringify(d.error));
// A marker in the trace: the undo's system calls come after this failing open.
try {
  closeSync(openSync('/dev/null/undo-begins', 'r'));
} catch {
  // ENOTDIR, as meant
}
const u = await call('fs.undo', { receipt_id: d.receipt_id });
if (u.status !== 'succeeded') throw new Error(JSON.stringify(u.error));
await rt.close();
