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
  withTracedChild('tg-checkpoints', new URL('./checkpoints-child.ts', import.meta.url).pathname, ['-e', 'trace=openat,fsync,fdatasync,pwrite64'], (t, { state }) => {
    const [pid, walBytes, here, alone] = t.stdout.trim().split(' ').map(Number) as [number, number, number, number];
    const lines = t.between('begin', 'end');
    const db = join(state, 'toolgate.db');
    // A checkpoint ends with an fsync of the database file itself (not its -wal).
    const dbSyncs = lines.filter((l) => /\bfsync\(\d+</.test(l) && l.includes(`<${db}>`));
    const onLoop = dbSyncs.filter((l) => l.startsWith(`${pid} `));
    assert.deepEqual(onLoop, [], 'no checkpoint ran on the event loop');
    assert.ok(dbSyncs.length >= 2, `the writer checkpointed during the calls (${dbSyncs.length} fsyncs of the database file)`);
    // Asked for once the WAL is past the mark, not once a commit: a checkpoint per quarter of the
    // mark written at most (a request per lone commit had the writer checkpoint, and fsync the
    // database file, every few calls while a checkpoint ran beside them).
    const frames = lines.filter((l) => l.includes('pwrite64(') && l.includes(`<${db}-wal>`) && /, 4096, \d+\) = 4096/.test(l)).length;
    assert.ok(frames > 2_000, `${frames} WAL frames written`);
    assert.ok(dbSyncs.length <= frames / 250 + 2, `${dbSyncs.length} checkpoints for ${frames} WAL frames`);
    // Not inside a batch: in the writer's thread, after a batch's WAL writes comes the batch's own
    // sync of the WAL (on the read-only descriptor WalFile opens, not SQLite's), and only then any
    // checkpoint. SQLite's automatic checkpoint ran inside the commit, between the two, and the
    // batch's callers waited for it.
    const wal = `<${db}-wal>`;
    const ours = new Set(t.lines.filter((l) => l.includes(`"${db}-wal", O_RDONLY`)).map((l) => /= (\d+)(?:<|$)/.exec(l)?.[1]).filter((fd) => fd !== undefined));
    assert.ok(ours.size > 0, 'the WAL syncs\' descriptors are in the trace');
    for (const sync of dbSyncs) {
      const tid = sync.split(' ')[0];
      const at = lines.indexOf(sync);
      const walEvents = lines.slice(0, at).filter((l) => l.startsWith(`${tid} `) && l.includes(wal) && (l.includes('pwrite64(') || [...ours].some((fd) => l.includes(`fdatasync(${fd}<`))));
      const last = walEvents[walEvents.length - 1] ?? '';
      assert.ok(!last.includes('pwrite64('), `a checkpoint ran between a batch's WAL writes and the batch's sync:\n${last}\n${sync}`);
    }
    // One call at a time, receipts are committed on the event loop, past the mark too: the writer
    // checkpoints beside them, after the event loop's connection said the WAL is past it. One a
    // checkpoint goes to the writer: the first after a checkpoint that left the frames of the
    // commits beside it, which the writer copies before that commit starts the WAL over; before,
    // every commit past 900 frames did (about one call in nine).
    assert.ok(here >= alone * 0.95, `${here} of ${alone} lone calls committed on the event loop`);
    // The writer's mark is SQLite's 1,000 frames; a WAL that is not restarted after its checkpoint
    // would grow past that (to 4,000 frames in these calls, and on to the event loop's mark, 10,000).
    assert.ok(walBytes <= 3_000 * (4096 + 24) + 32, `the WAL was restarted after its checkpoints: it grew to ${walBytes} bytes`);
  }));
