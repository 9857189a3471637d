// The posix_spawn start of ripgrep (src/resources/process/spawn-child.ts; git goes through it too, runCollect) against runChild's contract, with
// real children: what they inherit, their signals, stopping, and reaping.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasPosixSpawn, spawnChild } from '../../src/resources/process/spawn-child.js';
import type { ChildResult } from '../../src/resources/index.js';
import { alive } from '../support/processes.js';

function run(args: string[], opts: { fds?: number[]; signal?: AbortSignal; stopAt?: string; cwd?: string } = {}): { result: Promise<ChildResult>; out: () => string } {
  let out = '';
  const p = spawnChild('sh', ['-c', ...args], {
    cwd: opts.cwd ?? '/',
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.fds ? { fds: opts.fds } : {}),
    onStdout: (c) => {
      out += c.toString('utf8');
      return opts.stopAt === undefined || !out.includes(opts.stopAt);
    },
  });
  assert.ok(p !== null, 'posix_spawn is available');
  return { result: p, out: () => out };
}

describe('spawnChild (posix_spawn)', { skip: process.platform !== 'linux' ? 'Linux only' : false }, () => {
  it('loads on this Linux host (koffi and glibc)', () => {
    assert.equal(hasPosixSpawn(), true);
  });

  it('hands exactly the given descriptors, at their own numbers, and closes ours', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fs-search-spawn-'));
    try {
      writeFileSync(join(dir, 'a.txt'), 'alpha\n');
      writeFileSync(join(dir, 'b.txt'), 'beta\n');
      const a = openSync(join(dir, 'a.txt'), 'r');
      const b = openSync(join(dir, 'b.txt'), 'r');
      // Not handed: close-on-exec like every descriptor Node opens, so the child must not see it.
      const other = openSync(join(dir, 'a.txt'), 'r');
      try {
        const { result, out } = run([`cat /proc/self/fd/${a} /proc/self/fd/${b}; ls /proc/self/fd/${other} 2>/dev/null && echo LEAKED; pwd; echo oops >&2; exit 3`], { fds: [a, b], cwd: dir });
        const r = await result;
        assert.equal(out(), `alpha\nbeta\n${dir}\n`);
        assert.deepEqual({ code: r.code, signal: r.signal, killed: r.killed, stderr: r.stderr }, { code: 3, signal: null, killed: false, stderr: 'oops\n' });
        // Ours were closed once the child held its copies.
        assert.throws(() => fstatSync(a), { code: 'EBADF' });
        assert.throws(() => fstatSync(b), { code: 'EBADF' });
      } finally {
        closeSync(other);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts the child with default signal dispositions and nothing blocked (Node ignores SIGPIPE)', async () => {
    const { result, out } = run(['grep -E "^(SigBlk|SigIgn)" /proc/self/status']);
    await result;
    assert.match(out(), /SigBlk:\s+0+\n/);
    const ignored = BigInt('0x' + (/SigIgn:\s+([0-9a-f]+)/.exec(out())?.[1] ?? 'f'));
    // Bit n − 1 is signal n. glibc's posix_spawn leaves its two internal signals (32 and 33, for
    // thread cancellation and setxid, which nothing sends to another process) ignored; every
    // other signal is at its default, SIGPIPE (13) included.
    assert.equal(ignored & ~(3n << 31n), 0n, `ignored signals: ${ignored.toString(16)}`);
  });

  it('stops the child when the reader says so, and reaps it before settling', async () => {
    const { result } = run(['echo $$; echo ready; exec sleep 30'], { stopAt: 'ready' });
    const r = await result;
    assert.equal(r.killed, true);
    assert.equal(r.signal, 'SIGKILL');
  });

  it('stops on abort, reaps, and leaves no process', async () => {
    const stop = new AbortController();
    const { result, out } = run(['echo $$; exec sleep 30'], { signal: stop.signal });
    for (let i = 0; i < 500 && !out().includes('\n'); i++) await new Promise((r) => setTimeout(r, 10));
    const pid = Number(out().trim());
    assert.ok(pid > 0 && alive(pid));
    stop.abort();
    const r = await result;
    assert.equal(r.killed, true);
    assert.equal(alive(pid), false, 'the child was reaped (no zombie left)');
  });

  it('does not start when already aborted, and closes the descriptors it was given', async () => {
    const stop = new AbortController();
    stop.abort();
    const fd = openSync('/dev/null', 'r');
    const r = await run(['echo started'], { signal: stop.signal, fds: [fd] }).result;
    assert.equal(r.killed, true);
    assert.throws(() => fstatSync(fd), { code: 'EBADF' });
  });

  it('fails like spawn for a missing program', async () => {
    const p = spawnChild('/nonexistent/rg', [], { cwd: '/', signal: new AbortController().signal, onStdout: () => {} });
    await assert.rejects(p as Promise<ChildResult>, { code: 'ENOENT' });
  });
});
