// The spare wrapper's start through posix_spawn (src/sandbox/spawn-piped.ts), held to what
// child_process.spawn with seven pipes gives: only fds 0..6 reach the child, each a socket pair
// whose other end is ours; exactly the environment and cwd given; the exit code or signal
// reported once; every child reaped (no zombie), also when many end at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { BlockPipe } from '../../src/sandbox/block-fd.js';
import { hasSpawnPiped, spawnPiped, type PipedChild } from '../../src/sandbox/spawn-piped.js';

const skip = hasSpawnPiped() ? false : 'posix_spawn is not reachable through koffi here';

function collect(child: PipedChild): Promise<{ out: string; code: number | null; signal: NodeJS.Signals | null }> {
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
  return new Promise((resolve) => {
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let closed = false;
    const done = (): void => {
      if (exit && closed) resolve({ out, ...exit });
    };
    child.once('exit', (code: number | null, signal: NodeJS.Signals | null) => {
      exit = { code, signal };
      done();
    });
    child.stdout?.once('close', () => {
      closed = true;
      done();
    });
  });
}

function zombie(pid: number): boolean {
  if (!existsSync(`/proc/${pid}/stat`)) return false;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
}

const LIST_FDS = 'ls /proc/$$/fd > /tmp/tg-fds-$$ 2>&1; sort -n /tmp/tg-fds-$$ | tr "\\n" " "; rm /tmp/tg-fds-$$; echo';

test('the child holds the same descriptors as under child_process.spawn: the 7 pipes and what this process inherited without close-on-exec', { skip }, async () => {
  const oracle = spawn('/bin/sh', ['-c', LIST_FDS], { cwd: '/', env: {}, stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'] });
  let want = '';
  oracle.stdout.on('data', (d: Buffer) => (want += d.toString('utf8')));
  await new Promise((resolve) => oracle.once('close', resolve));
  const child = (await spawnPiped('/bin/sh', ['-c', LIST_FDS], { cwd: '/', env: {}, pipes: 7 })) as PipedChild;
  const r = await collect(child);
  assert.match(want, /^0 1 2 3 4 5 6 /);
  assert.equal(r.out, want);
});

test('what we write on one pipe is read on another; env and cwd are exact', { skip }, async () => {
  const child = (await spawnPiped('/bin/sh', ['-c', 'cat <&4; env; pwd'], { cwd: '/usr', env: { ONLY: 'this' }, pipes: 7 })) as PipedChild;
  assert.ok(child);
  child.stdio[4]?.end('from fd 4\n');
  for (const i of [0, 3, 5, 6]) child.stdio[i]?.end();
  const r = await collect(child);
  const rest = r.out.split('\n');
  assert.equal(rest[0], 'from fd 4');
  assert.deepEqual(rest.filter((l) => l.includes('=')).filter((l) => !/^(PWD|SHLVL|_)=/.test(l)), ['ONLY=this']);
  assert.ok(rest.includes('/usr'));
  assert.equal(r.code, 0);
});

test('the exit code, or the signal, is reported once and the child is reaped', { skip }, async () => {
  // Listened to as soon as each is started (its exit may be told before the next await ends).
  const a = (await spawnPiped('/bin/sh', ['-c', 'exit 3'], { cwd: '/', env: {}, pipes: 3 })) as PipedChild;
  let exits = 0;
  a.on('exit', () => exits++);
  const pa = collect(a);
  const b = (await spawnPiped('/bin/sh', ['-c', 'kill -TERM $$'], { cwd: '/', env: {}, pipes: 3 })) as PipedChild;
  const [ra, rb] = await Promise.all([pa, collect(b)]);
  assert.deepEqual([ra.code, ra.signal], [3, null]);
  assert.deepEqual([rb.code, rb.signal], [null, 'SIGTERM']);
  assert.equal(exits, 1);
  assert.equal(zombie(a.pid) || zombie(b.pid), false);
});

test('40 children that end together are all reaped: no zombie, each exit told', { skip }, async () => {
  const children: PipedChild[] = [];
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      spawnPiped('/bin/sh', ['-c', `exit ${i % 7}`], { cwd: '/', env: {}, pipes: 3 }).then((c) => {
        children[i] = c as PipedChild;
        return collect(c as PipedChild);
      }),
    ),
  );
  assert.deepEqual(results.map((r) => r.code), children.map((_, i) => i % 7));
  assert.deepEqual(children.filter((c) => zombie(c.pid)).map((c) => c.pid), []);
});

test('a program that does not exist is ENOENT and leaves no descriptor open', { skip }, async () => {
  const before = readdirSync('/proc/self/fd').length;
  await assert.rejects(spawnPiped('/nonexistent/tg-program', [], { cwd: '/', env: {}, pipes: 7 }), (e: NodeJS.ErrnoException) => e.code === 'ENOENT');
  assert.equal(readdirSync('/proc/self/fd').length, before);
});

test('a descriptor given at a number reaches the child there, stays ours, and its stdio slot is null (the spare\'s block pipe)', { skip }, async () => {
  const pipe = BlockPipe.create();
  assert.ok(pipe, 'pipe2 is reachable where posix_spawn is');
  try {
    // The child reopens its end read-write, as the spare's script does, then reads one byte.
    // Its descriptors are listed by a simple command, no pipeline: the shell holds a pipeline's
    // pipe ends while it starts the stages, and under load `ls` saw them (4, 5, 6: one run of the full suite, 2026-12-06).
    const child = (await spawnPiped('/bin/sh', ['-c', `${BlockPipe.reopenLine(3)}; head -c 1 <&3; echo; ls /proc/$$/fd`], { cwd: '/', env: {}, pipes: 4, fds: { 3: pipe.read } })) as PipedChild;
    assert.equal(child.stdio[3], null);
    pipe.closeRead();
    const result = collect(child);
    pipe.release();
    const r = await result;
    assert.equal(r.code, 0);
    const [byte, ...fds] = r.out.split('\n');
    assert.equal(byte, 'x', 'the byte written on our end');
    assert.deepEqual(fds.filter((f) => f !== '' && Number(f) < 10).sort((a, b) => Number(a) - Number(b)), ['0', '1', '2', '3']);
  } finally {
    pipe.close();
  }
});
