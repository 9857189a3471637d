// bench/exec: the cost of shell.exec against bare bubblewrap and a bare spawn, a 1 GiB stdout
// flood to artifacts, and the time from cancel to last process gone. Run with
//   npx tsx bench/exec/main.ts          (N=200 by default; N=50 for a quick look)
// Everything is measured in this run, on this machine; ratios are against bare bwrap.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ArtifactStore } from '../../src/artifacts/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { bwrapArgs, defaultHomes, Sandbox, scanWorkspace } from '../../src/sandbox/index.js';
import { PathClassifier } from '../../src/resources/index.js';
import { createShellExec } from '../../src/tools/shell-exec/tool.js';

const N = Number(process.env['N'] ?? 200);
const ROUNDS = 5;
const BWRAP = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-all', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
const GRANT = { tools: ['*'], effects: ['read', 'write', 'execute'] as ('read' | 'write' | 'execute')[], read: ['**', '.'], write: ['**', '.'] };

function runOnce(file: string, args: string[], shell = false, infoFd = false): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const c = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe', infoFd ? 'pipe' : 'ignore'], shell });
    c.stdout?.resume();
    c.stderr?.resume();
    (c.stdio[3] as NodeJS.ReadableStream | null)?.resume();
    c.once('error', reject);
    c.once('close', (code) => resolve(code));
  });
}

type Variant = { name: string; once: () => Promise<void>; samples: number[] };

function stats(xs: number[]): { median: number; mean: number; p90: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return { median: at(0.5), mean: xs.reduce((a, b) => a + b, 0) / xs.length, p90: at(0.9) };
}

function markerPids(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker)) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

async function spawnCost(ws: string, gitWs: string, bigWs: string, deepWs: string, state: string, gitState: string): Promise<void> {
  // spare: true as shell.exec runs them (a wrapper waits in the next run's cgroups: src/sandbox/spare.ts).
  const sandbox = new Sandbox({ workspace: ws, spare: true });
  // Watched with inotify between runs, as shell.exec's and shell.session's sandboxes are; the
  // unwatched ones lstat every directory of the workspace on every run (before issue 14's fix).
  const big = new Sandbox({ workspace: bigWs, spare: true, watchWorkspace: true });
  const bigUnwatched = new Sandbox({ workspace: bigWs, spare: true });
  const deep = new Sandbox({ workspace: deepWs, spare: true, watchWorkspace: true });
  const deepUnwatched = new Sandbox({ workspace: deepWs, spare: true });
  const lean = new Sandbox({ workspace: ws, measure: false, spare: true });
  // The same mounts Sandbox.run asks for (hidden home dot-entries, private /run, the workspace):
  // this reference isolates what supervision, cgroups and the receipt cost.
  const profile = bwrapArgs({ workspace: ws, workspaceWritable: true, cwd: ws, network: 'none', homes: defaultHomes(), hide: [state], user: { uid: 0, gid: 0 }, workspaceMounts: scanWorkspace(ws, { classify: (p) => new PathClassifier().classify(p), user: { uid: 0, gid: 0 } }) }, 3);
  const rt = await createRuntime({ workspace: ws, stateDir: state, tools: [createShellExec() as never], grant: GRANT });
  const rtGit = await createRuntime({ workspace: gitWs, stateDir: gitState, tools: [createShellExec() as never], grant: GRANT });
  let seq = 0;
  const envelope = (): Record<string, unknown> => ({ protocol_version: PROTOCOL_VERSION, task_id: 'bench', tool: 'shell.exec', arguments: { argv: ['/bin/true'] }, idempotency_key: `k${seq++}` });
  const variants: Variant[] = [
    { name: 'bare spawn /bin/true', once: async () => void (await runOnce('/bin/true', [])), samples: [] },
    { name: 'bare bwrap from Node', once: async () => void (await runOnce('bwrap', [...BWRAP, '--', '/bin/true'])), samples: [] },
    { name: "bare bwrap, Toolgate's profile argv", once: async () => void (await runOnce('bwrap', [...profile, '--', '/bin/true'], false, true)), samples: [] },
    {
      name: 'Sandbox.run (no runtime)',
      once: async () => {
        const r = await sandbox.run({ argv: ['/bin/true'], cwd: ws, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000 });
        if (r.exit_code !== 0) throw new Error(`sandbox: ${r.reason}`);
      },
      samples: [],
    },
    {
      name: 'Sandbox.run, pids cgroup only (measure: false)',
      once: async () => {
        const r = await lean.run({ argv: ['/bin/true'], cwd: ws, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000 });
        if (r.exit_code !== 0) throw new Error(`sandbox: ${r.reason}`);
      },
      samples: [],
    },
    ...(
      [
        [`Sandbox.run, ${BIG_FILES} files (${BIG_SECRETS} secret)`, big, bigWs],
        ['  the same, not watched', bigUnwatched, bigWs],
        [`Sandbox.run, ${DEEP_DIRS} dirs (node_modules-like)`, deep, deepWs],
        ['  the same, not watched', deepUnwatched, deepWs],
      ] as const
    ).map(([name, sb, cwd]) => ({
      name,
      once: async () => {
        const r = await sb.run({ argv: ['/bin/true'], cwd, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 10_000 });
        if (r.exit_code !== 0) throw new Error(`sandbox(${name}): ${r.reason}`);
      },
      samples: [] as number[],
    })),
    {
      name: 'runtime.call shell.exec (durable receipt)',
      once: async () => {
        const r = await rt.call(envelope());
        if (r.status !== 'succeeded') throw new Error(`runtime: ${JSON.stringify(r.error)}`);
      },
      samples: [],
    },
    {
      name: 'runtime.call shell.exec, git workspace',
      once: async () => {
        const r = await rtGit.call(envelope());
        if (r.status !== 'succeeded') throw new Error(`runtime(git): ${JSON.stringify(r.error)}`);
      },
      samples: [],
    },
  ];

  const srt = await loadSrt(ws);
  if (srt) variants.push({ name: 'sandbox-runtime wrap + spawn', once: srt.once, samples: [] });

  for (const v of variants) for (let i = 0; i < 10; i++) await v.once(); // warm up
  const per = Math.max(1, Math.round(N / ROUNDS));
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of variants) {
      for (let i = 0; i < per; i++) {
        const t = performance.now();
        await v.once();
        v.samples.push(performance.now() - t);
      }
    }
  }
  const ref = stats((variants[1] as Variant).samples).median;
  const sameProfile = stats((variants[2] as Variant).samples).median;
  console.log(`\n/bin/true, ${per * ROUNDS} calls each, interleaved in ${ROUNDS} rounds (ms per call)`);
  console.log('variant'.padEnd(44), 'median'.padStart(8), 'mean'.padStart(8), 'p90'.padStart(8), '  vs bare bwrap', '  vs same-profile bwrap');
  for (const v of variants) {
    const s = stats(v.samples);
    console.log(v.name.padEnd(44), s.median.toFixed(2).padStart(8), s.mean.toFixed(2).padStart(8), s.p90.toFixed(2).padStart(8), `  ${(s.median / ref).toFixed(2)}x`.padEnd(16), `  ${(s.median / sameProfile).toFixed(2)}x`);
  }
  if (!srt) console.log('sandbox-runtime: not installed in bench/.work/srt (see docs/shell.md); not measured');
  await srt?.close();
  await rt.close();
  await rtGit.close();
  for (const sb of [sandbox, big, bigUnwatched, deep, deepUnwatched, lean]) sb.close();
}

async function loadSrt(ws: string): Promise<{ once: () => Promise<void>; close: () => Promise<void> } | null> {
  const entry = join(import.meta.dirname, '..', '.work', 'srt', 'node_modules', '@anthropic-ai', 'sandbox-runtime', 'dist', 'index.js');
  if (!existsSync(entry)) return null;
  try {
    const mod = (await import(entry)) as { SandboxManager: { initialize(c: unknown): Promise<void>; wrapWithSandbox(cmd: string): Promise<string>; reset(): Promise<void> } };
    const sm = mod.SandboxManager;
    await sm.initialize({ network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowWrite: [ws], denyWrite: [] } });
    return {
      once: async () => {
        const cmd = await sm.wrapWithSandbox('/bin/true');
        const code = await runOnce(cmd, [], true);
        if (code !== 0) throw new Error(`srt exited ${code}`);
      },
      close: () => sm.reset(),
    };
  } catch (e) {
    console.log(`sandbox-runtime: installed but failed to start: ${(e as Error).message}`);
    return null;
  }
}

function bareFlood(bytes: number): Promise<number> {
  const t = performance.now();
  return new Promise((resolve) => {
    const c = spawn('head', ['-c', String(bytes), '/dev/zero'], { stdio: ['ignore', 'pipe', 'ignore'] });
    c.stdout.resume();
    c.once('close', () => resolve((performance.now() - t) / 1000));
  });
}

async function flood(ws: string): Promise<void> {
  const store = mkdtempSync(join(tmpdir(), 'tg-bench-artifacts-'));
  try {
    const artifacts = new ArtifactStore(store);
    const sandbox = new Sandbox({ workspace: ws });
    const GiB = 1024 ** 3;
    const ref = await bareFlood(GiB);
    console.log(`\nreference: Node reading 1 GiB from a bare spawn's pipe, recording nothing: ${(GiB / 1e6 / ref).toFixed(0)} MB/s`);
    const sinkStart = performance.now();
    await sandbox.run({
      argv: ['head', '-c', String(GiB), '/dev/zero'],
      cwd: ws,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 600_000,
      limits: { output_bytes: 2 * GiB },
      openArtifact: () => ({ write: () => {}, close: () => ({ digest: 'sha256:none' as never, bytes: 0, media_type: '', role: '' }), abort: () => {} }),
    });
    console.log(`Sandbox.run capture into a sink that drops the bytes: ${(GiB / 1e6 / ((performance.now() - sinkStart) / 1000)).toFixed(0)} MB/s`);
    const base = process.memoryUsage().rss;
    let peak = base;
    let lastByteMs = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const t = performance.now();
    const r = await sandbox.run({
      argv: ['head', '-c', String(GiB), '/dev/zero'],
      cwd: ws,
      env: { PATH: '/usr/bin:/bin' },
      timeoutMs: 600_000,
      limits: { output_bytes: 2 * GiB },
      openArtifact: (s) => artifacts.writer('application/octet-stream', s),
      onChunk: (c) => (lastByteMs = c.at_ms),
    });
    const secs = (performance.now() - t) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log(`1 GiB stdout flood through Sandbox.run to an artifact: ${r.stdout.bytes} bytes, artifact ${r.stdout.artifact?.bytes ?? 0} bytes, reason ${r.reason}`);
    console.log(`  streaming (spawn to last byte read, sha256 + write each chunk): ${(GiB / 1e6 / (lastByteMs / 1000)).toFixed(0)} MB/s in ${(lastByteMs / 1000).toFixed(2)} s`);
    console.log(`  whole call (with fsync and rename of the artifact, teardown): ${(GiB / 1e6 / secs).toFixed(0)} MB/s in ${secs.toFixed(2)} s`);
    console.log(`  peak RSS growth ${((peak - base) / 1024 ** 2).toFixed(1)} MiB (goal <= 64 MiB at >= 300 MB/s)`);
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
}

async function cancelTree(ws: string): Promise<void> {
  const graceMs = 200;
  const sandbox = new Sandbox({ workspace: ws, graceMs });
  console.log(`\ncancel of a 100-process tree that ignores SIGTERM (grace ${graceMs} ms; goal <= grace + 50 ms, 0 survivors)`);
  for (let i = 0; i < 5; i++) {
    const marker = `tgbench${randomBytes(6).toString('hex')}`;
    const ac = new AbortController();
    const run = sandbox.run({
      argv: ['sh', '-c', 'trap "" TERM; i=0; while [ $i -lt 100 ]; do sh -c "trap \\"\\" TERM; exec sleep 1000" & i=$((i+1)); done; wait'],
      cwd: ws,
      env: { PATH: '/usr/bin:/bin', TG_MARKER: marker },
      timeoutMs: 60_000,
      limits: { processes: 400 },
      signal: ac.signal,
    });
    while (markerPids(marker).length < 101) await new Promise((r) => setTimeout(r, 5));
    const t = performance.now();
    ac.abort();
    await run;
    const took = performance.now() - t;
    console.log(`  run ${i + 1}: cancel to last process gone ${took.toFixed(1)} ms (grace + ${(took - graceMs).toFixed(1)} ms), survivors ${markerPids(marker).length}`);
  }
}

// A larger workspace: every run walks it for secret and protected entries (docs/shell.md).
const BIG_FILES = Number(process.env['BIG_FILES'] ?? 20_000);
const BIG_SECRETS = 40;

// A workspace shaped like a modest node_modules: many directories of few files.
const DEEP_DIRS = Number(process.env['DEEP_DIRS'] ?? 20_000);

function deepWorkspace(dir: string): void {
  for (let d = 0; d < DEEP_DIRS; d++) {
    const sub = join(dir, 'node_modules', `pkg${d % 2000}`, `lib${d}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'index.js'), 'x');
    writeFileSync(join(sub, 'package.json'), '{}');
  }
}

function bigWorkspace(dir: string): void {
  const perDir = 50;
  for (let i = 0; i < BIG_FILES; i++) {
    const sub = join(dir, `d${Math.floor(i / perDir / 20)}`, `e${Math.floor(i / perDir) % 20}`);
    if (i % perDir === 0) mkdirSync(sub, { recursive: true });
    const secret = i % Math.floor(BIG_FILES / BIG_SECRETS) === 0;
    writeFileSync(join(sub, secret ? `f${i}.pem` : `f${i}.ts`), secret ? 'KEY' : 'x');
  }
}

const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-bench-exec-')));
try {
  const ws = join(base, 'ws');
  const gitWs = join(base, 'git-ws');
  mkdirSync(ws);
  mkdirSync(gitWs);
  execFileSync('git', ['init', '-q', gitWs]);
  writeFileSync(join(gitWs, 'a.txt'), 'a\n');
  execFileSync('git', ['-C', gitWs, 'add', '.']);
  execFileSync('git', ['-C', gitWs, '-c', 'user.email=b@b', '-c', 'user.name=b', 'commit', '-qm', 'a']);
  const bigWs = join(base, 'big-ws');
  bigWorkspace(bigWs);
  const deepWs = join(base, 'deep-ws');
  deepWorkspace(deepWs);
  const probe = new Sandbox({ workspace: ws });
  console.log(`wrapper shell ${probe.host.shell?.path} (stray inherited fds: ${probe.host.strayFds.join(' ') || 'none'}); cgroups: ${Object.keys(probe.host.cgroups.bases).join(', ') || 'none'}`);
  await spawnCost(ws, gitWs, bigWs, deepWs, join(base, 'state'), join(base, 'git-state'));
  await cancelTree(ws);
  if (process.env['FLOOD'] !== '0') await flood(ws);
} finally {
  rmSync(base, { recursive: true, force: true });
}
