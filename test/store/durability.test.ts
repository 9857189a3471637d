// Item 13 of issue 10: with durability `normal`, receipts already returned as succeeded were lost
// when the file system failed. The proof here is the system calls themselves (strace): between
// the call and its return, the last write to the WAL is followed by an fsync of the WAL, so the
// receipt is on stable storage before anyone hears of it. And continuation.key only ever gets
// its name by link(2) of a temporary file already fsync'ed, so it cannot be seen torn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime, loadTokenKey } from '../../src/runtime/index.js';

const CHILD = fileURLToPath(new URL('./durability-child.ts', import.meta.url));
const HAS_STRACE = spawnSync('strace', ['-V']).status === 0;

interface Traced {
  readonly stdout: string;
  readonly lines: string[];
}

function traced(durability: 'default' | 'normal' | 'key-file'): { t: Traced; cleanup: () => void } {
  const d = tempDirs('tg-dur');
  const out = join(d.base, 'trace');
  // -y: each descriptor is printed with its file (`23</…/toolgate.db-wal>`), so a write by a
  // child process (the host-tools probes, chromium's helpers) on an fd of the same number is not
  // taken for a WAL write; the key-file case matches bare fd numbers.
  const r = spawnSync('strace', ['-f', '-qq', ...(durability === 'key-file' ? [] : ['-y']), '-o', out, '-e', 'trace=openat,close,write,pwrite64,fsync,fdatasync,link,linkat,rename,renameat,renameat2', process.execPath, '--import', 'tsx', CHILD, d.workspace, d.state, durability], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return { t: { stdout: r.stdout, lines: joinResumed(readFileSync(out, 'utf8').split('\n')) }, cleanup: d.cleanup };
}

/**
 * strace -f splits a system call that another thread interrupted into `call(args <unfinished ...>`
 * and `<... call resumed>rest`: each is joined into one line, placed where the call returned.
 */
function joinResumed(lines: readonly string[]): string[] {
  const pending = new Map<string, string>();
  const out: string[] = [];
  for (const line of lines) {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) {
      out.push(line);
      continue;
    }
    const [, pid, text] = m as unknown as [string, string, string];
    if (text.endsWith(' <unfinished ...>')) {
      pending.set(pid, text.slice(0, -' <unfinished ...>'.length));
      continue;
    }
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(text);
    if (resumed && pending.has(pid)) {
      out.push(`${pid}  ${pending.get(pid)}${resumed[1]}`);
      pending.delete(pid);
      continue;
    }
    out.push(line);
  }
  return out;
}

/** For the calls between CALL and RETURNED: WAL writes, and WAL fsyncs after the last write. */
function walSyncAfterLastWrite(t: Traced): { writes: number; syncsAfterLastWrite: number } {
  // SQLite writes the WAL through its descriptor; the store syncs it through its own (the
  // writer's, or the event loop's for a lone call): a sync of the file through any descriptor counts. strace -y names each fd's file.
  let inCall = false;
  let writes = 0;
  let syncsAfter = 0;
  for (const line of t.lines) {
    if (/write\(1(<[^>]*>)?, "CALL\\n"/.test(line)) inCall = true;
    if (/write\(1(<[^>]*>)?, "RETURNED/.test(line)) break;
    if (!inCall) continue;
    const call = /\b(pwrite64|write|fsync|fdatasync)\(\d+<([^>]*)>/.exec(line);
    if (!call || !(call[2] as string).endsWith('/toolgate.db-wal')) continue;
    if (call[1] === 'pwrite64' || call[1] === 'write') {
      writes++;
      syncsAfter = 0;
    } else syncsAfter++;
  }
  if (!inCall) throw new Error('the CALL marker is not in the trace');
  return { writes, syncsAfterLastWrite: syncsAfter };
}

test('by default, the receipt is fsync\'ed before call() returns (strace: a WAL fsync follows the last WAL write)', { skip: !HAS_STRACE && 'strace is not installed' }, () => {
  const { t, cleanup } = traced('default');
  try {
    assert.match(t.stdout, /RETURNED succeeded/);
    const wal = walSyncAfterLastWrite(t);
    assert.ok(wal.writes > 0, 'the call wrote its intent and receipt to the WAL');
    assert.ok(wal.syncsAfterLastWrite >= 1, `WAL fsyncs after the last WAL write, before return: ${wal.syncsAfterLastWrite}`);
  } finally {
    cleanup();
  }
});

test('durability normal (the documented opt-in) returns before the WAL is fsync\'ed: what it risks', { skip: !HAS_STRACE && 'strace is not installed' }, () => {
  const { t, cleanup } = traced('normal');
  try {
    assert.match(t.stdout, /RETURNED succeeded/);
    assert.equal(walSyncAfterLastWrite(t).syncsAfterLastWrite, 0);
  } finally {
    cleanup();
  }
});

test('continuation.key gets its name only by link(2) of an fsync\'ed temporary file, never by a create or write', { skip: !HAS_STRACE && 'strace is not installed' }, () => {
  const { t, cleanup } = traced('key-file');
  try {
    assert.match(t.stdout, /KEY 32/);
    const touching = t.lines.filter((l) => l.includes('continuation.key'));
    assert.ok(!touching.some((l) => /openat\([^)]*\/continuation\.key", [^)]*O_CREAT/.test(l)), 'never created in place');
    const link = touching.findIndex((l) => /link(at)?\(.*\.continuation\.key\.[0-9a-f]+\.tmp".*\/continuation\.key"/.test(l));
    assert.ok(link >= 0, 'linked into place');
    const tmpFd = /openat\([^)]*\.continuation\.key\.[0-9a-f]+\.tmp", [^)]*\) = (\d+)/.exec(touching.join('\n'))?.[1];
    assert.ok(tmpFd, 'a temporary file was written');
    const linkLine = t.lines.indexOf(touching[link] as string);
    const synced = t.lines.slice(0, linkLine).some((l) => new RegExp(`\\bfsync\\(${tmpFd}\\)`).test(l));
    assert.ok(synced, 'the temporary key was fsync\'ed before it got its name');
  } finally {
    cleanup();
  }
});

test('a torn (0-byte) continuation.key left by an older version does not kill the state dir: it is replaced', async () => {
  const d = tempDirs();
  try {
    mkdirSync(d.state, { recursive: true });
    writeFileSync(join(d.state, 'continuation.key'), '');
    const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state });
    try {
      writeFileSync(join(d.workspace, 'a.txt'), 'x\n');
      assert.equal((await rt.call(envelope('fs.read', { path: 'a.txt' }))).status, 'succeeded');
      // The store's key is used, not the torn file's bytes.
      assert.equal((await rt.store.sharedKey?.('continuation'))?.length, 32);
    } finally {
      await rt.close();
    }
    // A runtime on a store without shared keys replaces the torn file itself.
    assert.equal(loadTokenKey(d.state).length, 32);
    assert.equal(readFileSync(join(d.state, 'continuation.key')).length, 32);
    assert.ok(!readdirSync(d.state).some((n) => n.endsWith('.tmp')), 'no temporary key left');
  } finally {
    d.cleanup();
  }
});
