// Writes enough receipts through a fresh runtime to cross the checkpoint mark several times, one
// call at a time (committed on the event loop) and then 8 in flight (the writer's group commit),
// between trace marks; prints its pid (the event loop's thread id in the trace), the WAL's
// largest size and how many receipts the event loop committed of those in the first phase.
import { statSync } from 'node:fs';
import { createRuntime } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';
import type { SqliteStore } from '../../src/store/sqlite/store.js';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { traceMark } from '../support/strace.js';

const [workspace, state] = process.argv.slice(2) as [string, string];
const rt = await createRuntime({ workspace, stateDir: state, store: sqliteStore({ durability: 'full' }) });
const ALONE = 200;
const CALLS = ALONE + 400;
let next = 0;
let largestWal = 0;
const write = async (i: number): Promise<void> => {
  // fs.write: an intent row committed on the event loop's connection, then a receipt.
  const r = await rt.call({ protocol_version: PROTOCOL_VERSION, task_id: `t${i % 4}`, tool: 'fs.write', arguments: { path: `f${i}.txt`, content: `${i}\n`.repeat(200) } });
  if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
  largestWal = Math.max(largestWal, statSync(`${state}/toolgate.db-wal`).size);
};
traceMark('begin');
for (; next < ALONE; next++) await write(next);
const here = (rt.store as SqliteStore).writerStats().here;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < CALLS) {
      await write(next++);
    }
  }),
);
traceMark('end');
await rt.close();
process.stdout.write(`${process.pid} ${largestWal} ${here} ${ALONE}\n`);
