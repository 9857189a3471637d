// bench/patch: a rename of a common identifier across 20 files (~150 hunks) in a git
// repository of 220 source files, applied through runtime.call (fs.patch with a unified diff:
// preimage checks, preimage artifacts, durable receipt) and through `git apply`, in the same
// run, interleaved. Prints medians and the ratio toolgate / git apply (goal: <= 1.5, issue 14).
//   npx tsx bench/patch/main.ts [rounds] [work-dir]   (work-dir e.g. /dev/shm: where fsync is free)
import { execFileSync } from 'node:child_process';
import { closeSync, fdatasync, fsync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ArtifactStore } from '../../src/artifacts/index.js';
import type { AttemptId, Digest, TaskId } from '../../src/protocol/index.js';
import { Workspace } from '../../src/resources/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { createFsPatch } from '../../src/tools/fs-patch/tool.js';
import { git, moduleSource, OLD, renamePatch } from './fixture.js';

/** The tool alone (normalize + execute with real workspace and artifacts), without the pipeline. */
async function toolAlone(repo: string, artifactsDir: string, patch: string): Promise<number> {
  const ws = Workspace.open(repo);
  try {
    const tool = createFsPatch();
    const t = performance.now();
    const args = tool.args.parse({ unified_diff: patch });
    const n = await tool.normalize(args, { workspace: ws, task_id: 'bench' as TaskId, receipts: { get: async () => undefined }, grants: async () => true });
    let revision = 0;
    const out = await tool.execute({
      args,
      prepared: n.prepared,
      action: { tool: 'fs.patch', tool_version: tool.version, effect_class: 'write', resources: n.resources, args_digest: 'sha256:0' as Digest },
      signal: new AbortController().signal,
      deadline: Date.now() + 60_000,
      task_id: 'bench' as TaskId,
      attempt_id: 'bench' as AttemptId,
      logical_effect_id: null,
      workspace: ws,
      artifacts: new ArtifactStore(artifactsDir),
      tokens: { sign: () => '', verify: () => ({}) },
      revision: { current: async () => `r${revision}`, advance: async () => `r${++revision}` },
      receipts: { get: async () => undefined },
      progress: () => {},
      hidden_paths: [],
      addSecret: () => {},
      markSent: async () => {},
    });
    if (out.status !== 'succeeded') throw new Error(`fs.patch failed: ${JSON.stringify(out.error)}`);
    return performance.now() - t;
  } finally {
    ws.close();
  }
}

const ROUNDS = Number(process.argv[2] ?? 15);
const WARMUP = 3;
const FILES = 220;
const TOUCHED = 20;

const fdatasyncAsync = promisify(fdatasync);
const fsyncAsync = promisify(fsync);

/**
 * The durability floor of the contract, measured alone: stage one file per touched path and the
 * preimage bundle, sync them together, rename, sync the directories. No checks, no receipt.
 */
async function fsyncFloor(repo: string, files: readonly string[], bytes: number): Promise<number> {
  const data = Buffer.alloc(Math.ceil(bytes / files.length), 97);
  const t = performance.now();
  const fds = files.map((f) => {
    const fd = openSync(join(repo, `${f}.floor`), 'w');
    writeSync(fd, data);
    return fd;
  });
  const bundle = openSync(join(repo, 'bundle.floor'), 'w');
  writeSync(bundle, Buffer.alloc(bytes, 98));
  await Promise.all([...fds.map((fd) => fdatasyncAsync(fd)), fsyncAsync(bundle)]);
  for (const fd of [...fds, bundle]) closeSync(fd);
  for (const f of files) renameSync(join(repo, `${f}.floor`), join(repo, `${f}.floor2`));
  const dirs = [...new Set(files.map((f) => join(repo, f, '..')))].map((d) => openSync(d, 'r'));
  await Promise.all(dirs.map((fd) => fsyncAsync(fd)));
  const ms = performance.now() - t;
  for (const fd of dirs) closeSync(fd);
  for (const f of files) unlinkSync(join(repo, `${f}.floor2`));
  unlinkSync(join(repo, 'bundle.floor'));
  return ms;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function main(): Promise<void> {
  const workDir = process.argv[3] ?? join(process.cwd(), 'bench/.work');
  mkdirSync(workDir, { recursive: true });
  const base = mkdtempSync(join(workDir, 'patch-'));
  const repo = join(base, 'repo');
  try {
    mkdirSync(join(repo, 'lib'), { recursive: true });
    writeFileSync(join(repo, 'lib/log.ts'), 'export function log(...a: unknown[]): void { void a; }\n');
    writeFileSync(join(repo, 'lib/records.ts'), `export async function ${OLD}(id: string): Promise<{ size: number } | null> { return { size: id.length }; }\n`);
    const usesEvery = Math.floor(FILES / TOUCHED);
    for (let i = 0; i < FILES; i++) {
      const dir = join(repo, `pkg${i % 11}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `mod${i}.ts`), moduleSource(i, i % usesEvery === 0 && i / usesEvery < TOUCHED));
    }
    const { patch, touched } = renamePatch(repo);
    const hunks = patch.split('\n').filter((l) => l.startsWith('@@')).length;
    writeFileSync(join(base, 'rename.patch'), patch);
    const sourceFiles = git(repo, 'ls-files').trim().split('\n').length;
    console.log(`fixture: ${sourceFiles} files in git, patch touches ${touched.length} files with ${hunks} hunks (${patch.length} bytes)`);

    const rt = await createRuntime({ workspace: repo, stateDir: join(base, 'state') });
    const tg: number[] = [];
    const ga: number[] = [];
    const fl: number[] = [];
    const ta: number[] = [];
    try {
      for (let round = 0; round < WARMUP + ROUNDS; round++) {
        let t = performance.now();
        execFileSync('git', ['apply', join(base, 'rename.patch')], { cwd: repo });
        const gitMs = performance.now() - t;
        git(repo, 'checkout', '-q', '--', '.');

        t = performance.now();
        const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 'bench', tool: 'fs.patch', arguments: { unified_diff: patch }, idempotency_key: `round-${round}` });
        const tgMs = performance.now() - t;
        if (r.status !== 'succeeded') throw new Error(`fs.patch failed: ${JSON.stringify(r.error)}`);
        git(repo, 'checkout', '-q', '--', '.');
        const floorMs = await fsyncFloor(repo, touched, patch.length);
        const aloneMs = await toolAlone(repo, join(base, 'alone-artifacts'), patch);
        git(repo, 'checkout', '-q', '--', '.');
        if (round >= WARMUP) {
          ga.push(gitMs);
          tg.push(tgMs);
          fl.push(floorMs);
          ta.push(aloneMs);
        }
      }
    } finally {
      await rt.close();
    }
    const g = median(ga);
    const m = median(tg);
    console.log(`git apply          median ${g.toFixed(2)} ms  (min ${Math.min(...ga).toFixed(2)})`);
    console.log(`runtime.call patch median ${m.toFixed(2)} ms  (min ${Math.min(...tg).toFixed(2)})  [preimage checks, one preimage artifact, fsync, durable receipt]`);
    const f = median(fl);
    console.log(`fs.patch tool alone median ${median(ta).toFixed(2)} ms  (normalize + execute, no pipeline: the rest is parse, claim, receipt)`);
    console.log(`fsync floor alone  median ${f.toFixed(2)} ms  (the two sync rounds the contract needs; git apply does not fsync)`);
    console.log(`ratio toolgate / git apply = ${(m / g).toFixed(2)}  (goal <= 1.5, issue 14; ${ROUNDS} rounds after ${WARMUP} warm-up)`);
    console.log(`ratio without the fsync floor = ${(Math.max(0, m - f) / g).toFixed(2)}`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

await main();
