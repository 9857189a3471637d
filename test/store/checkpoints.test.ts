// The WAL is copied back into the database (a checkpoint) by the receipt writer, not by a commit
// on the event loop's connection: SQLite runs the checkpoint, its page copies and the database
// file's fsync inside whichever commit leaves the WAL past its mark, and an fs.write's intent row
// on the event loop's connection often did (56 checkpoints on the event loop in 4,000 fs.write
// calls, before).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { withTracedChild } from '../support/strace.js';

void test('traced with strace, 200 fs.write calls one at a time and 400 with 8 in flight: the event loop never checkpoints (fsyncs the database file), the writer does, the WAL is reused', () =>
  withTracedChild('tg-checkpoints', new URL('./checkpoints-child.ts', import.meta.url).pathname, ['-e', 'trace=openat,fsync,fdatasync'], (t, { state }) => {
    const [pid, wal, here, alone] = t.stdout.trim().split(' ').map(Number) as [number, number, number, number];
    const lines = t.between('begin', 'end');
    const db = join(state, 'toolgate.db');
    // A checkpoint ends with an fsync of the database file itself (not its -wal).
    const dbSyncs = lines.filter((l) => /\bfsync\(\d+</.test(l) && l.includes(`<${db}>`));
    const onLoop = dbSyncs.filter((l) => l.startsWith(`${pid} `));
    assert.deepEqual(onLoop, [], 'no checkpoint ran on the event loop');
    assert.ok(dbSyncs.length >= 2, `the writer checkpointed during the calls (${dbSyncs.length} fsyncs of the database file)`);
    // One call at a time, receipts are committed on the event loop, except near the writer's mark.
    assert.ok(here > alone / 2 && here < alone, `${here} of ${alone} lone calls committed on the event loop`);
    // The writer's mark is SQLite's 1,000 frames; a WAL that is not restarted after its checkpoint
    // would grow past that (to 4,000 frames in these calls, and on to the event loop's mark, 10,000).
    assert.ok(wal <= 3_000 * (4096 + 24) + 32, `the WAL was restarted after its checkpoints: it grew to ${wal} bytes`);
  }));
