// The WAL is copied back into the database (a checkpoint) by the receipt writer, not by a commit
// on the event loop's connection, and not inside a commit whose callers wait for it: SQLite runs the checkpoint, its page copies and the database
// file's fsync inside whichever commit leaves the WAL past its mark, and an fs.write's intent row
// on the event loop's connection often did (56 checkpoints on the event loop in 4,000 fs.write
// calls, before).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withTracedChild } from '../support/strace.js';

void test('traced with strace, 200 fs.write calls one at a time and 400 with 8 in flight: the event loop never checkpoints (fsyncs the database file), the writer does, after answering its batch, and the WAL is reused', () =>
  withTracedChild('tg-checkpoints', new URL('./checkpoints-child.ts', import.meta.url).pathname, ['-e', 'trace=openat,fsync,fdatasync,pwrite64,write'], (t, { state }) => {
    const [pid, walBytes, here, alone] = t.stdout.trim().split(' ').map(Number) as [number, number, number, number];
    const lines = t.between('begin', 'end');
    const db = join(state, 'toolgate.db');
    // A checkpoint ends with an fsync of the database file itself (not its -wal).
    const dbSyncs = lines.filter((l) => /\bfsync\(\d+</.test(l) && l.includes(`<${db}>`));
    const onLoop = dbSyncs.filter((l) => l.startsWith(`${pid} `));
    assert.deepEqual(onLoop, [], 'no checkpoint ran on the event loop');
    assert.ok(dbSyncs.length >= 2, `the writer checkpointed during the calls (${dbSyncs.length} fsyncs of the database file)`);
    // Not inside a batch: after a batch's WAL writes, the writer answers (a worker's message
    // wakes the event loop through an eventfd) before any checkpoint. SQLite's automatic
    // checkpoint ran inside the commit, between the two, and the batch's callers waited for it.
    const wal = `<${db}-wal>`;
    for (const sync of dbSyncs) {
      const tid = sync.split(' ')[0];
      const at = lines.indexOf(sync);
      const before = lines.slice(0, at).filter((l) => l.startsWith(`${tid} `) && ((l.includes('pwrite64(') && l.includes(wal)) || (/\bwrite\(\d+</.test(l) && l.includes('eventfd'))));
      const last = before[before.length - 1] ?? '';
      assert.ok(!last.includes('pwrite64('), `a checkpoint ran between a batch's WAL writes and its answer:\n${last}\n${sync}`);
    }
    // One call at a time, every receipt is committed on the event loop, past the mark too: the
    // writer checkpoints beside them, after the event loop's connection said the WAL is past it.
    assert.equal(here, alone, `${here} of ${alone} lone calls committed on the event loop`);
    // The writer's mark is SQLite's 1,000 frames; a WAL that is not restarted after its checkpoint
    // would grow past that (to 4,000 frames in these calls, and on to the event loop's mark, 10,000).
    assert.ok(walBytes <= 3_000 * (4096 + 24) + 32, `the WAL was restarted after its checkpoints: it grew to ${walBytes} bytes`);
  }));
