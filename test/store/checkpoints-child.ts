// Writes enough receipts through a fresh runtime to cross the checkpoint mark several times,
// between trace marks, and prints its pid (the event loop's thread id in the trace).
import { statSync } from 'node:fs';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { traceMark } from '../support/strace.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
const rt = await createRuntime({ workspace, stateDir: state, store: sqliteStore({ durability: 'full' }) });
const CALLS = 400;
let next = 0;
let largestWal = 0;
traceMark('begin');
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < CALLS) {
      const i = next++;
      // fs.write: an intent row committed on the event loop's connection, then a receipt.
      const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: `t${i % 4}`, tool: 'fs.write', arguments: { path: `f${i}.txt`, content: `${i}\n`.repeat(200) } });
      if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
      largestWal = Math.max(largestWal, statSync(`${state}/toolgate.db-wal`).size);
    }
  }),
);
traceMark('end');
await rt.close();
process.stdout.write(`${process.pid} ${largestWal}\n`);
