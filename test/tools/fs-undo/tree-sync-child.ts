// Deletes a tree with fs.delete and restores it with fs.undo in its own process, for
// tree-restore.test.ts to trace with strace.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../../src/runtime/index.js';
import { traceMark } from '../../support/strace.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
for (let i = 0; i < 30; i++) {
  mkdirSync(join(workspace, 'tree', `d${i % 3}`), { recursive: true });
  writeFileSync(join(workspace, 'tree', `d${i % 3}`, `f${i}`), `file ${i}\n`);
}
symlinkSync('d0/f0', join(workspace, 'tree', 'link'));
const rt = await createRuntime({ workspace, stateDir: state });
const call = (tool: string, args: Record<string, unknown>) => rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool, arguments: args });
// A first effect: the store's one-time syncs (its folder, at the WAL's first sync) are behind us.
const w = await call('fs.write', { path: 'warm.txt', content: 'w\n' });
if (w.status !== 'succeeded') throw new Error(JSON.stringify(w.error));
traceMark('delete-begins');
const d = await call('fs.delete', { path: 'tree', recursive: true });
if (d.status !== 'succeeded') throw new Error(JSON.stringify(d.error));
traceMark('undo-begins');
const u = await call('fs.undo', { receipt_id: d.receipt_id });
if (u.status !== 'succeeded') throw new Error(JSON.stringify(u.error));
await rt.close();
