// fs.patch of an existing file (its preimage becomes an artifact) in a process of its own, for
// durable.test.ts to trace with strace. Marks in the trace: traceMark.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime } from '../../src/runtime/index.js';
import { traceMark } from '../support/strace.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
writeFileSync(join(workspace, 'a.txt'), 'old\n');
const rt = await createRuntime({ workspace, stateDir: state });
traceMark('begin');
const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool: 'fs.patch', arguments: { files: [{ path: 'a.txt', edits: [{ old: 'old', new: 'new' }] }] } });
traceMark('end');
if (r.status !== 'succeeded' || r.artifacts.length !== 1) throw new Error(JSON.stringify(r));
process.stdout.write(`${r.artifacts[0]?.digest}\n`);
await rt.close();
