// Several processes open one new state folder at the same moment (hosts started together on one
// SQLite file). Each switches the file to WAL, which SQLite refuses at once with SQLITE_BUSY to
// all but one of them when they collide (its busy handler would deadlock): a host died at start
// in CI this way. Real processes, a real file; every open must succeed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./concurrent-open-child.ts', import.meta.url));
const PROCESSES = 4;
const ROUNDS = 20;

test(`${PROCESSES} processes opening one new SQLite state folder together, ${ROUNDS} times: every open succeeds and the file is in WAL mode`, { timeout: 300_000 }, async () => {
  const base = mkdtempSync(join(tmpdir(), 'tg-open-together-'));
  const children: ChildProcessByStdio<Writable, Readable, null>[] = [];
  try {
    const lines: AsyncIterator<string>[] = [];
    const readers: Interface[] = [];
    for (let i = 0; i < PROCESSES; i++) {
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['pipe', 'pipe', 'inherit'] });
      children.push(child);
      const rl = createInterface({ input: child.stdout });
      readers.push(rl);
      lines.push(rl[Symbol.asyncIterator]());
    }
    const next = async (i: number): Promise<string> => {
      const r = await (lines[i] as AsyncIterator<string>).next();
      if (r.done) throw new Error(`child ${i} ended`);
      return r.value;
    };
    // The barrier: every child has loaded before the first folder is sent.
    assert.deepEqual(await Promise.all(children.map((_, i) => next(i))), Array(PROCESSES).fill('ready'));
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const dir = join(base, `state-${round}`);
      for (const child of children) child.stdin.write(`${dir}\n`);
      for (const answer of await Promise.all(children.map((_, i) => next(i)))) if (answer !== 'ok wal') failures.push(`round ${round}: ${answer}`);
    }
    assert.deepEqual(failures, []);
    for (const rl of readers) rl.close();
  } finally {
    for (const child of children) child.kill('SIGKILL');
    rmSync(base, { recursive: true, force: true });
  }
});
