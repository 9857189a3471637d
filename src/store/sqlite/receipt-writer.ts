// The receipt writer: a worker thread with its own connection to the state database that seals
// and appends receipts and makes them durable, so the event loop does neither. Sealing (the
// canonical serialization and its sha256) and the insert were about half of the main thread's
// work for a 4 KiB fs.read (bench/call-overhead); here they run on the other core. A lone call
// (no other in flight, the writer idle) is the exception: with no one to share a batch with, the
// hand-offs cost more than the work, and store.ts commits it on the event loop (commitHere).
//
// Group commit: every request that arrived while the previous batch was written and synced is
// written in the next one (one IMMEDIATE transaction), then one fdatasync of the WAL covers the
// batch; only then are its receipts answered. The transaction itself runs with
// synchronous=NORMAL and the sync is ours, so the write lock is not held across the fsync (a
// claim on the main connection waits for an insert, never for a disk flush). That is FULL's
// guarantee: the WAL is append-only between checkpoints and checksummed in order, so after a
// crash SQLite keeps the longest valid prefix, and a checkpoint syncs the WAL before copying it.
// A failed sync poisons the writer: Linux may report a write-back error once and then forget it
// (PostgreSQL's "fsyncgate"), so every later commit fails too.
//
// Checkpoints (the WAL copied into the database file, then that file fsync'ed: 1-2 ms here, more
// on a large store) are the writer's too, but not inside a commit: SQLite's automatic checkpoint
// runs in whichever commit crosses its mark, and that commit's callers wait for it. The writer
// checkpoints once the WAL holds CHECKPOINT_FRAMES, after the batch that got it there is answered,
// or when the event loop's connection, having committed a lone call there, says the WAL is past the
// mark ('checkpoint'). A PASSIVE checkpoint takes no write lock, so the event loop's lone commits
// go on while it runs; it cannot copy their frames, though, and SQLite starts the WAL over only at
// a commit that finds every frame copied. The lone commit after such a checkpoint comes here
// (copyTail), and the writer copies that tail before committing it: one call waits, once a
// checkpoint (store.ts #commitHere, docs/protocol.md#durability).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CommitRequest } from '../types.js';
import { ReceiptChain, type Appended } from './receipt-chain.js';
import { failpoint } from '../../protocol/index.js';
import { CHECKPOINT_CATCH_UP_FRAMES, CHECKPOINT_FRAMES, WalFile, WalIndex } from './wal.js';

export interface WriterData {
  readonly path: string;
  readonly durability: 'normal' | 'full';
}

/** main → writer: a batch of commit requests, as one JSON string (cheaper to post than objects). */
export interface WriteRequest {
  readonly id: number;
  readonly json: string;
  /** A caller waits for a sync of the WAL even if no commit of the batch succeeds (markSent's intent row). */
  readonly sync: boolean;
  /** Checkpoint before the batch: a checkpoint beside the event loop's lone commits left their frames (store.ts). */
  readonly copyTail: boolean;
}

/** writer → main: one outcome per request of the batch, the batch's number and whether a sync covered it. */
export interface WriteAnswer {
  readonly id: number;
  readonly results: readonly Appended[];
  readonly batch: number;
  readonly synced: boolean;
  /** Why the batch was not synced, when it should have been. */
  readonly syncError: { readonly code: string | null; readonly message: string } | null;
}

function failedAll(n: number, e: unknown): Appended[] {
  const code = typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : null;
  const message = e instanceof Error ? e.message : String(e);
  return Array.from({ length: n }, () => ({ ok: false as const, code, message }));
}

function main(port: NonNullable<typeof parentPort>, data: WriterData): void {
  const db = new Database(data.path);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  db.pragma('synchronous = NORMAL');
  const chain = new ReceiptChain(db);
  const wal = data.durability === 'full' ? new WalFile(`${data.path}-wal`) : null;
  const walIndex = new WalIndex(data.path);
  // A WAL-index this code cannot read keeps SQLite's automatic checkpoint, in the commits.
  const ownCheckpoints = walIndex.frames() !== null;
  if (ownCheckpoints) db.pragma('wal_autocheckpoint = 0');
  let poisoned: unknown = null;
  let queue: WriteRequest[] = [];
  let scheduled = false;
  let closed = false;
  let batches = 0;

  const checkpointNow = (): void => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // Nothing is lost: the WAL keeps every frame not yet copied (and synced), and the next
      // checkpoint copies them again; the event loop's connection checkpoints at its own mark.
    }
  };
  /** Checkpoints when the WAL holds the mark: after a batch's answers are posted, or when the event loop asks. */
  const checkpointIfDue = (): void => {
    if (ownCheckpoints && !closed && poisoned === null && (walIndex.frames() ?? 0) >= CHECKPOINT_FRAMES) checkpointNow();
  };

  const flush = (): void => {
    scheduled = false;
    const batch = queue;
    queue = [];
    const reqs: CommitRequest[][] = batch.map((b) => JSON.parse(b.json) as CommitRequest[]);
    const all = reqs.flat();
    const batch_ = ++batches;
    let synced = false;
    let results: Appended[];
    if (poisoned !== null) results = failedAll(all.length, poisoned);
    else {
      // A checkpoint that ran beside commits on the event loop's connection left their frames:
      // they are copied before the batch, whose commit then starts the WAL over. So is a WAL at
      // the catch-up mark, whoever left it there.
      if (ownCheckpoints && all.length > 0 && (batch.some((b) => b.copyTail) || (walIndex.frames() ?? 0) >= CHECKPOINT_CATCH_UP_FRAMES)) checkpointNow();
      results = all.length > 0 ? chain.append(all) : [];
      if (results.some((r) => r.ok)) failpoint('during_commit');
      if (wal !== null && (batch.some((b) => b.sync) || results.some((r) => r.ok))) {
        try {
          wal.sync();
          synced = true;
        } catch (e) {
          poisoned = e;
          results = failedAll(all.length, e);
        }
      }
    }
    const syncError = synced || wal === null ? null : (failedAll(1, poisoned ?? new Error('the WAL was not synced'))[0] as { code: string | null; message: string });
    let at = 0;
    for (let i = 0; i < batch.length; i++) {
      const n = (reqs[i] as CommitRequest[]).length;
      port.postMessage({ id: (batch[i] as WriteRequest).id, results: results.slice(at, at + n), batch: batch_, synced, syncError } satisfies WriteAnswer);
      at += n;
    }
    // The answers are on their way (a worker's messages do not wait for its thread): no caller
    // of this batch waits for the checkpoint, only commits that arrive while it runs.
    checkpointIfDue();
  };

  port.on('message', (m: WriteRequest | 'close' | 'checkpoint') => {
    if (m === 'close') {
      if (queue.length > 0) flush();
      closed = true;
      walIndex.close();
      db.close();
      port.close();
      return;
    }
    if (m === 'checkpoint') {
      // A flush already due checkpoints after its answers.
      if (!scheduled) checkpointIfDue();
      return;
    }
    queue.push(m);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
}

if (parentPort !== null) main(parentPort, workerData as WriterData);
