import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ArtifactStore } from '../../src/artifacts/index.js';
import { ToolgateError } from '../../src/protocol/index.js';
import { omissionMarker, Sandbox, type OutputChunk, type RunRequest } from '../../src/sandbox/index.js';
import { BASE_ENV, tempWorkspace } from './fixtures.js';

function setup(o: { head?: number; tail?: number } = {}) {
  const ws = tempWorkspace();
  const store = mkdtempSync(join(tmpdir(), 'tg-artifacts-'));
  const artifacts = new ArtifactStore(store);
  const sb = new Sandbox({ workspace: ws.dir, graceMs: 200, previewHeadBytes: o.head ?? 8192, previewTailBytes: o.tail ?? 8192 });
  const run = (argv: string[], extra: Partial<RunRequest> = {}) =>
    sb.run({ argv, cwd: ws.dir, env: { ...BASE_ENV }, timeoutMs: 20_000, openArtifact: (s) => artifacts.writer('application/octet-stream', s), ...extra });
  const allStored = (): Buffer[] => {
    const out: Buffer[] = [];
    const walk = (d: string): void => {
      for (const n of readdirSync(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else out.push(readFileSync(p));
      }
    };
    walk(store);
    return out;
  };
  return { ws, artifacts, run, allStored, done: () => (ws.remove(), rmSync(store, { recursive: true, force: true })) };
}

test('small output is inline in full: no artifact, nothing omitted', async () => {
  const s = setup();
  try {
    const r = await s.run(['sh', '-c', 'printf out; printf err >&2']);
    assert.deepEqual(r.stdout, { preview: 'out', bytes: 3, omitted_bytes: 0, lines: 1, omitted_lines: 0, artifact: null });
    assert.deepEqual(r.stderr, { preview: 'err', bytes: 3, omitted_bytes: 0, lines: 1, omitted_lines: 0, artifact: null });
  } finally {
    s.done();
  }
});

test('large output: head and tail preview with the exact omitted count, the whole stream as an artifact', async () => {
  const s = setup({ head: 100, tail: 50 });
  try {
    const r = await s.run(['sh', '-c', 'seq 1 100000']);
    const full = Buffer.from(Array.from({ length: 100000 }, (_, i) => `${i + 1}\n`).join(''));
    assert.equal(r.stdout.bytes, full.length);
    assert.equal(r.stdout.omitted_bytes, full.length - 150);
    assert.equal(r.stdout.preview, full.subarray(0, 100).toString() + omissionMarker(full.length - 150) + full.subarray(full.length - 50).toString());
    assert.ok(r.stdout.artifact);
    assert.equal(r.stdout.artifact.bytes, full.length);
    assert.ok(s.artifacts.get(r.stdout.artifact.digest).equals(full));
  } finally {
    s.done();
  }
});

test('a preview never cuts a UTF-8 character; the omitted count covers the bytes of the cut one', async () => {
  const s = setup({ head: 10, tail: 10 });
  try {
    // 'é' is 2 bytes: 100 of them; head 10 and tail 10 bytes hold 5 each.
    const r = await s.run(['sh', '-c', 'i=0; while [ $i -lt 100 ]; do printf é; i=$((i+1)); done']);
    assert.equal(r.stdout.preview, 'ééééé' + omissionMarker(180) + 'ééééé');
    const odd = await s.run(['sh', '-c', 'printf x; i=0; while [ $i -lt 100 ]; do printf é; i=$((i+1)); done']);
    // head: x + 4 é (9 bytes, the 5th é would be cut); tail: 5 é.
    assert.equal(odd.stdout.preview, 'xéééé' + omissionMarker(201 - 9 - 10) + 'ééééé');
  } finally {
    s.done();
  }
});

test('a secret value printed by the command is in no preview and no artifact, even split across reads', async () => {
  const s = setup({ head: 64, tail: 64 });
  const secret = 'tg-canary-' + Math.random().toString(36).slice(2) + '-secret';
  try {
    // Large unbuffered writes around it make the secret straddle pipe reads.
    const script = 'for n in 65530 65533 131070 7; do head -c $n /dev/zero | tr "\\0" a; printf "%s" "$SECRET_X"; done; echo "$SECRET_X" >&2';
    const r = await s.run(['bash', '-c', script], { env: { ...BASE_ENV, SECRET_X: secret }, secrets: [secret] });
    assert.equal(r.exit_code, 0);
    for (const preview of [r.stdout.preview, r.stderr.preview]) assert.ok(!preview.includes(secret));
    assert.equal(r.stderr.preview, '[REDACTED]\n');
    assert.ok(r.stdout.artifact);
    const stored = s.artifacts.get(r.stdout.artifact.digest).toString('latin1');
    assert.equal(stored.split('[REDACTED]').length - 1, 4, 'every occurrence replaced');
    for (const blob of s.allStored()) assert.ok(!blob.includes(secret), 'no stored file holds the secret');
  } finally {
    s.done();
  }
});

test('past the output cap the command is ended with reason output_limit, and the artifact stops at the cap', async () => {
  const s = setup();
  try {
    const r = await s.run(['yes', 'flood'], { limits: { output_bytes: 1024 * 1024 } });
    assert.equal(r.reason, 'output_limit');
    assert.ok(r.stdout.bytes >= 1024 * 1024);
    assert.equal(r.stdout.artifact?.bytes, 1024 * 1024);
    assert.equal(r.limits.output_bytes.enforced_by, 'supervisor');
  } finally {
    s.done();
  }
});

test('no output for idle_timeout_ms ends the command with reason idle_timeout', async () => {
  const s = setup();
  try {
    const t0 = performance.now();
    const r = await s.run(['sh', '-c', 'echo first; sleep 30'], { idleTimeoutMs: 300, timeoutMs: 20_000 });
    assert.equal(r.reason, 'idle_timeout');
    assert.equal(r.stdout.preview, 'first\n');
    assert.ok(performance.now() - t0 < 5_000);
  } finally {
    s.done();
  }
});

test('steady output does not reset the wall clock: timeout_ms ends it with reason timeout', async () => {
  const s = setup();
  try {
    const r = await s.run(['sh', '-c', 'while :; do echo tick; sleep 0.05; done'], { idleTimeoutMs: 400, timeoutMs: 700 });
    assert.equal(r.reason, 'timeout');
    assert.ok(r.duration_ms >= 700 && r.duration_ms < 5_000, `${r.duration_ms}`);
    assert.match(r.stdout.preview, /^(tick\n)+$/);
  } finally {
    s.done();
  }
});

test('chunks carry one sequence across both streams, in order, with timestamps', async () => {
  const s = setup();
  try {
    const chunks: OutputChunk[] = [];
    await s.run(['sh', '-c', 'echo a; sleep 0.05; echo b >&2; sleep 0.05; echo c'], { onChunk: (c) => chunks.push(c) });
    assert.deepEqual(chunks.map((c) => [c.seq, c.stream, c.bytes]), [[0, 'stdout', 2], [1, 'stderr', 2], [2, 'stdout', 2]]);
    assert.ok(chunks.every((c, i) => i === 0 || c.at_ms >= (chunks[i - 1] as OutputChunk).at_ms));
  } finally {
    s.done();
  }
});

test('stdin text reaches the command; exit codes and signals are reported as they were', async () => {
  const s = setup();
  try {
    const r = await s.run(['cat'], { stdin: Buffer.from('hello stdin') });
    assert.equal(r.stdout.preview, 'hello stdin');
    const three = await s.run(['sh', '-c', 'exit 3']);
    assert.deepEqual([three.reason, three.exit_code, three.signal], ['exited', 3, null]);
    const segv = await s.run(['sh', '-c', 'kill -SEGV $$']);
    assert.deepEqual([segv.reason, segv.exit_code, segv.signal], ['signaled', null, 'SIGSEGV']);
  } finally {
    s.done();
  }
});

test('a command that does not exist is spawn_failed, and nothing is spawned', async () => {
  const s = setup();
  try {
    let spawned = false;
    const r = await s.run(['no-such-command-tg'], { onSpawn: () => void (spawned = true) });
    assert.equal(r.reason, 'spawn_failed');
    assert.equal(r.exit_code, null);
    assert.equal(spawned, false);
  } finally {
    s.done();
  }
});

test('a call cancelled before the spawn starts nothing and is not marked sent', async () => {
  const s = setup();
  try {
    let spawned = false;
    const ac = new AbortController();
    ac.abort();
    const r = await s.run(['sleep', '5'], { signal: ac.signal, onSpawn: () => void (spawned = true) });
    assert.equal(r.reason, 'cancelled');
    assert.equal(spawned, false);
  } finally {
    s.done();
  }
});

test('a command found only in a location the sandbox hides is spawn_failed, not a confusing exit 1', async () => {
  const s = setup();
  try {
    // /tmp is private inside: an executable there (outside the workspace) cannot run.
    const dir = mkdtempSync(join(tmpdir(), 'tg-hidden-bin-'));
    writeFileSync(join(dir, 'tg-hidden-tool'), '#!/bin/sh\necho ran\n', { mode: 0o755 });
    try {
      const r = await s.run(['tg-hidden-tool'], { env: { PATH: `${dir}:/usr/bin:/bin` } });
      assert.equal(r.reason, 'spawn_failed');
      assert.match(r.notes.join(' '), /no such executable/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    s.done();
  }
});

test('pty: the command sees a terminal, quoting survives, and without util-linux script it is unsupported', async () => {
  const s = setup();
  try {
    const r = await s.run(['sh', '-c', 'test -t 0 && test -t 1 && printf "%s|" "$0" "$1"', "it's", 'a b'], { pty: true });
    assert.equal(r.exit_code, 0, r.stdout.preview);
    assert.equal(r.stdout.preview, "it's|a b|");
    const noScript = new Sandbox({ workspace: s.ws.dir, hide: ['/usr/bin/script', '/bin/script'] });
    await assert.rejects(
      noScript.run({ argv: ['true'], cwd: s.ws.dir, env: { ...BASE_ENV }, timeoutMs: 5_000, pty: true }),
      (e: unknown) => ToolgateError.isInstance(e) && e.code === 'unsupported',
    );
  } finally {
    s.done();
  }
});

test('the timeout counts from the command\'s release: a slow onSpawn does not eat into it, and is bounded by it too', async () => {
  const s = setup();
  try {
    // 1 s held before the release, then a command of 1 s, with a timeout of 1.8 s for each part
    // (the margins are wide: a loaded host may take a while to start bubblewrap and sleep).
    const held = await s.run(['sh', '-c', 'sleep 1; echo done'], { timeoutMs: 1_800, onSpawn: () => new Promise((r) => setTimeout(r, 1_000)) });
    assert.equal(held.reason, 'exited', `the command had its 1.8 s: ${held.reason}`);
    assert.equal(held.stdout.preview, 'done\n');
    // A release that comes after the timeout is none: the run ends at the timeout, nothing ran
    // (it returns once onSpawn has settled, as the intent's write must be known first).
    const late = await s.run(['sh', '-c', 'echo ran'], { timeoutMs: 300, onSpawn: () => new Promise((r) => setTimeout(r, 1_000)) });
    assert.equal(late.reason, 'timeout');
    assert.equal(late.stdout.preview, '');
  } finally {
    s.done();
  }
});
