// fs.search against `git grep` and `rg` on a corpus of >= 20,000 real source files, measured in
// the same run. Run: npx tsx bench/search/main.ts  (the corpus is built once in bench/.work/).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createRuntime } from '../../src/runtime/index.js';
import type { FsSearchResult } from '../../src/tools/fs-search/schema.js';

const WORK = resolve('bench/.work/search-corpus');
const MIN_FILES = 20_000;
/** Real source trees: this project's node_modules first, then system trees until there are enough files. */
const SOURCES: [string, string][] = [
  ['node_modules', 'npm'],
  ['/usr/include', 'include'],
  ['/usr/lib/python3', 'python3'],
  ['/usr/lib/python3.11', 'python3.11'],
  ['/usr/share/perl', 'perl'],
  ['/usr/lib/node_modules', 'global-npm'],
  ['/usr/share/perl5', 'perl5'],
];
const RUNS = Number(process.env['BENCH_RUNS'] ?? 9);

function countFiles(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) n += countFiles(join(dir, e.name));
    else if (e.isFile()) n++;
  }
  return n;
}

function buildCorpus(): number {
  const marker = join(WORK, '.corpus-ready');
  if (existsSync(marker)) return Number(execFileSync('git', ['ls-files', '-z'], { cwd: WORK, maxBuffer: 1 << 28 }).toString().split('\0').length - 1);
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  let files = 0;
  for (const [src, dest] of SOURCES) {
    if (files >= MIN_FILES) break;
    if (!existsSync(src) || !statSync(src).isDirectory()) continue;
    cpSync(src, join(WORK, dest), { recursive: true, verbatimSymlinks: true });
    files = countFiles(WORK);
  }
  if (files < MIN_FILES) throw new Error(`only ${files} source files found; need ${MIN_FILES}`);
  const git = (...a: string[]): void => void execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...a], { cwd: WORK, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A', '-f', '.');
  git('commit', '-qm', 'corpus');
  writeFileSync(join(WORK, '.git', 'info', 'exclude'), '.corpus-ready\n');
  writeFileSync(marker, '');
  return files;
}

/** Wall time of a shell pipeline, to its end. */
function timeShell(cmd: string): Promise<number> {
  return new Promise((res, rej) => {
    const t = process.hrtime.bigint();
    const c = spawn('sh', ['-c', cmd], { cwd: WORK, stdio: ['ignore', 'ignore', 'ignore'] });
    c.once('error', rej);
    c.once('close', () => res(Number(process.hrtime.bigint() - t) / 1e6));
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

/** Runs the three back to back, RUNS times (after a warm-up), so that each trio sees the same load. */
async function measureTrio(fns: readonly (() => Promise<unknown>)[]): Promise<{ medians: number[]; ratios: number[][] }> {
  for (const fn of fns) await fn();
  const times: number[][] = fns.map(() => []);
  for (let i = 0; i < RUNS; i++) {
    for (let k = 0; k < fns.length; k++) {
      const t = process.hrtime.bigint();
      await (fns[k] as () => Promise<unknown>)();
      (times[k] as number[]).push(Number(process.hrtime.bigint() - t) / 1e6);
    }
  }
  const ours = times[0] as number[];
  return { medians: times.map(median), ratios: times.slice(1).map((ref) => ours.map((o, i) => o / (ref[i] as number))) };
}

async function main(): Promise<void> {
  const files = buildCorpus();
  const state = mkdtempSync(join(tmpdir(), 'bench-search-'));
  const rt = await createRuntime({ workspace: WORK, stateDir: state, grant: { tools: ['*'], effects: ['read'], read: ['**', '.'], write: [] } });
  let task = 0;
  const search = async (args: Record<string, unknown>): Promise<FsSearchResult[]> => {
    const t = `bench${++task}`;
    const pages: FsSearchResult[] = [];
    let continuation: string | undefined;
    do {
      const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: t, tool: 'fs.search', arguments: { ...args, ...(continuation ? { continuation } : {}) } });
      if (r.status !== 'succeeded') throw new Error(JSON.stringify(r.error));
      const res = r.result as FsSearchResult;
      pages.push(res);
      continuation = res.continuation ?? undefined;
    } while (continuation && args['max_results'] !== 200);
    return pages;
  };
  const full = { max_results: 10_000, max_bytes: 4 * 1024 * 1024, timeout_ms: 120_000 };
  const cases: { name: string; ours: Record<string, unknown>; rg: string; git: string }[] = [
    { name: 'common literal, first 200', ours: { query: 'function', max_results: 200 }, rg: "rg -n --column -F function | head -n 200", git: "git grep -n --column -F function | head -n 200" },
    { name: 'common literal, full count', ours: { query: 'function', output: 'count_only', ...full }, rg: 'rg -c -F function', git: 'git grep -c -F function' },
    { name: 'rare literal', ours: { query: 'PyGILState_Ensure', ...full }, rg: 'rg -n --column -F PyGILState_Ensure', git: 'git grep -n --column -F PyGILState_Ensure' },
    { name: 'regex, full count', ours: { mode: 'regex', query: 'function\\s+\\w+\\(', output: 'count_only', ...full }, rg: "rg -c 'function\\s+\\w+\\('", git: "git grep -c -E 'function\\s+\\w+\\('" },
    { name: 'filename glob', ours: { mode: 'filename', query: '*parse*', output: 'paths_only', ...full }, rg: "rg --files -g '*parse*'", git: "git ls-files '*parse*'" },
  ];
  // BENCH_CASES=first,count,... keeps the cases whose name starts with one of these (default: all).
  const only = (process.env['BENCH_CASES'] ?? '').split(',').filter(Boolean);
  const chosen = only.length === 0 ? cases : cases.filter((c) => only.some((o) => c.name.startsWith(o)));
  console.log(`corpus: ${files} files in ${WORK}; median of ${RUNS} warm runs; ripgrep: ${execFileSync('rg', ['--version']).toString().split('\n')[0]}`);
  console.log(['case', 'fs.search ms', 'rg ms', 'git grep ms', 'ratio vs rg', 'ratio vs git grep', 'results'].join(' | '));
  console.log('(ratios: median over runs of fs.search / reference, each run measured back to back)');
  // The floor under every fs.search page: listing candidates with the three git commands it runs.
  const listing = (): Promise<number> =>
    timeShell('git ls-files -z --stage >/dev/null & git ls-files -z --others --exclude-standard >/dev/null & git ls-files -z --others --ignored --exclude-standard --directory >/dev/null & wait');
  try {
    for (const c of chosen) {
      let summary = '';
      const { medians, ratios } = await measureTrio([
        async () => {
          const pages = await search(c.ours);
          const last = pages[pages.length - 1] as FsSearchResult;
          summary = `${pages.length} page(s), ${last.total ?? pages.reduce((s, p) => s + (p.matches?.length ?? 0), 0)} results, engine ${last.engine}`;
        },
        () => timeShell(c.rg),
        () => timeShell(c.git),
      ]);
      const [ours, rg, gg] = medians as [number, number, number];
      const [vsRg, vsGit] = ratios.map(median) as [number, number];
      console.log([c.name, ours.toFixed(1), rg.toFixed(1), gg.toFixed(1), vsRg.toFixed(2), vsGit.toFixed(2), summary].join(' | '));
    }
    if (only.length > 0) return;
    const floor = await measureTrio([listing, () => timeShell("rg -n --column -F function | head -n 200"), () => timeShell('git grep -c -F function')]);
    const [l, r, g] = floor.medians as [number, number, number];
    const [lr, lg] = floor.ratios.map(median) as [number, number];
    console.log(['(listing floor: the 3 git ls-files)', l.toFixed(1), r.toFixed(1), g.toFixed(1), lr.toFixed(2), lg.toFixed(2), 'rg = first 200, git = full count'].join(' | '));
  } finally {
    await rt.close();
    rmSync(state, { recursive: true, force: true });
  }
}

await main();
