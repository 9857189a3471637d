// The spare wrapper (src/sandbox/spare.ts): a run through it must be the same run as through a
// fresh wrapper (environment, stdin, cgroup cap and measurements, nothing left running), the
// intent's durable write must still precede the command, and the spare itself must never be
// left behind (closed sandbox, killed runtime).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../../src/sandbox/index.js';
import { BASE_ENV, newMarker, processesWithMarker, tempWorkspace, waitFor } from './fixtures.js';

const hasPidsGroup = new Sandbox({ workspace: '/tmp', spare: false }).host.cgroups.bases.pids !== undefined;
const skip = hasPidsGroup ? false : 'no writable pids cgroup (the spare needs one)';

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function readySpare(sb: Sandbox): Promise<number> {
  await waitFor(() => sb.spare?.ready === true, 20_000, 'the spare wrapper to be in its groups');
  return (sb.spare as { pid: number }).pid;
}

test('a run through the spare is the run a fresh wrapper gives: environment, stdin, cap, measurements, nothing left', { skip }, async () => {
  const ws = tempWorkspace();
  const sb = new Sandbox({ workspace: ws.dir, spare: true });
  const fresh = new Sandbox({ workspace: ws.dir, spare: false });
  try {
    const marker = newMarker();
    const env = { ...BASE_ENV, TG_MARKER: marker, QUOTED: "it's \"x\"\n$HOME `id` \\", EMPTY: '' };
    const line = 'env | LC_ALL=C sort; cat; for i in 1 2 3 4 5 6 7 8 9 10; do sleep 100 & done; wait';
    await sb.run({ argv: ['true'], cwd: ws.dir, env: BASE_ENV, timeoutMs: 30_000 });
    const pid = await readySpare(sb);
    const req = { argv: ['sh', '-c', line], cwd: ws.dir, env, stdin: Buffer.from('from stdin\n'), timeoutMs: 30_000, limits: { processes: 4 } };
    const viaSpare = await sb.run(req);
    assert.ok(!alive(pid), 'the spare ran this command (it is gone with it)');
    const viaFresh = await fresh.run(req);
    assert.equal(viaSpare.reason, 'exited');
    assert.equal(viaSpare.stdout.preview, viaFresh.stdout.preview, 'the same environment and stdin');
    assert.match(viaSpare.stdout.preview, /^QUOTED=it's "x"$/m);
    assert.match(viaSpare.stdout.preview, /from stdin\n$/);
    assert.doesNotMatch(viaSpare.stdout.preview, /^SHLVL=/m, 'only the named variables (and PWD)');
    assert.ok(viaSpare.notes.some((n) => /process limit refused \d+ fork/.test(n)), `the pids cap of 4 holds: ${viaSpare.notes.join('; ')}`);
    assert.equal(viaSpare.limits.processes.enforced_by, 'cgroup');
    assert.ok(viaSpare.cpu_ms !== null && viaSpare.peak_rss_bytes !== null, 'measured in the spare\'s groups');
    assert.deepEqual(processesWithMarker(marker), []);
    assert.ok(!viaSpare.notes.some((n) => /could not be removed/.test(n)), `the spare's groups were removed: ${viaSpare.notes.join('; ')}`);
  } finally {
    sb.close();
    ws.remove();
  }
});

for (const spare of [true, false]) {
  test(`the command starts only once onSpawn (markSent) has resolved, and not at all when it rejects (spare: ${spare})`, { skip: spare ? skip : false }, async () => {
    const ws = tempWorkspace();
    const sb = new Sandbox({ workspace: ws.dir, spare });
    try {
      await sb.run({ argv: ['true'], cwd: ws.dir, env: BASE_ENV, timeoutMs: 30_000 });
      if (spare) await readySpare(sb);
      let resolvedAt = 0n;
      const r = await sb.run({
        argv: ['date', '+%s%N'],
        cwd: ws.dir,
        env: BASE_ENV,
        timeoutMs: 30_000,
        onSpawn: async () => {
          await new Promise((res) => setTimeout(res, 300));
          resolvedAt = BigInt(Date.now()) * 1_000_000n;
        },
      });
      assert.equal(r.exit_code, 0);
      assert.ok(BigInt(r.stdout.preview.trim()) >= resolvedAt, `command at ${r.stdout.preview.trim()}, onSpawn resolved at ${resolvedAt}`);

      if (spare) await readySpare(sb);
      const marker = newMarker();
      const refused = new Error('the intent could not be recorded');
      await assert.rejects(
        sb.run({
          argv: ['sh', '-c', 'touch started; sleep 100'],
          cwd: ws.dir,
          env: { ...BASE_ENV, TG_MARKER: marker },
          timeoutMs: 30_000,
          onSpawn: () => new Promise((_, reject) => setTimeout(() => reject(refused), 200)),
        }),
        (e) => e === refused,
      );
      assert.ok(!existsSync(join(ws.dir, 'started')), 'the command never ran');
      assert.deepEqual(processesWithMarker(marker), []);
    } finally {
      sb.close();
      ws.remove();
    }
  });
}

test('close ends the spare and removes its cgroups', { skip }, async () => {
  const ws = tempWorkspace();
  const sb = new Sandbox({ workspace: ws.dir, spare: true });
  try {
    await sb.run({ argv: ['true'], cwd: ws.dir, env: BASE_ENV, timeoutMs: 30_000 });
    const pid = await readySpare(sb);
    const group = /^\d+:pids:(.*)$/m.exec(readFileSync(`/proc/${pid}/cgroup`, 'utf8'))?.[1] as string;
    const dir = join(sb.host.cgroups.bases.pids as string, group.slice(group.lastIndexOf('/')));
    assert.ok(existsSync(dir), `the spare waits in its own group ${dir}`);
    sb.close();
    await waitFor(() => !alive(pid), 10_000, 'the spare to end');
    await waitFor(() => !existsSync(dir), 10_000, 'its group to be removed');
    assert.equal(sb.spare, null);
  } finally {
    ws.remove();
  }
});

test('a runtime killed with SIGKILL leaves no spare behind', { skip }, async () => {
  const ws = tempWorkspace();
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./spare-in-child.ts', import.meta.url)), ws.dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('\n'), 60_000, 'the child to report its spare');
    const pid = Number(out.trim());
    assert.ok(Number.isInteger(pid) && alive(pid), `a live spare: ${out}`);
    child.kill('SIGKILL');
    await waitFor(() => !alive(pid), 10_000, 'the spare to end with its runtime');
  } finally {
    child.kill('SIGKILL');
    ws.remove();
  }
});
