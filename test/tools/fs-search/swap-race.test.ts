// A directory inside the workspace is exchanged with a link to the outside (renameat2
// RENAME_EXCHANGE, atomically, in a loop) by another process while fs.search runs. No search may
// ever return the outside file's content (a first page scanned in process, a page by ripgrep, a
// count on worker threads) or an outside file's name (filename
// mode), for an absolute and a relative link. The test counts outcomes; it does not depend on
// winning the race, only on the race having happened (the inside file seen and missed).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, harness } from './fixture.js';
import type { FsSearchResult } from '../../../src/tools/fs-search/schema.js';

const CANARY = 'OUTSIDE-CANARY-c4f1';
const CANARY_NAME = 'outside-canary-name';
/** Searches per mode and link kind: 8 × 750 = 6,000. */
const SEARCHES = 750;
/** A bound on each loop's time, so that a very slow machine ends the test rather than hangs it. */
const LOOP_BUDGET_MS = 75_000;
/** Searches in flight at once: a search mostly waits for its children (git, ripgrep). */
const IN_FLIGHT = 4;

/** Exchanges two names atomically, as fast as it can; prints the count now and then. */
export const SWAPPER_PY = String.raw`
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = sys.argv[1].encode(), sys.argv[2].encode()
n = 0
while True:
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.exit('renameat2: errno %d' % ctypes.get_errno())
    n += 1
    if n % 1024 == 0:
        print(n, flush=True)
`;

interface Swapper {
  readonly child: ChildProcess;
  swaps(): number;
  stop(): Promise<void>;
}

function startSwapper(a: string, b: string): Swapper {
  const child = spawn('python3', ['-c', SWAPPER_PY, a, b], { stdio: ['ignore', 'pipe', 'inherit'] });
  let swaps = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    const last = chunk.toString().trim().split('\n').pop();
    if (last) swaps = Number(last);
  });
  return {
    child,
    swaps: () => swaps,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

/** base/ws (a git repo with dir/ holding tracked and untracked files) and base/outside (the canaries). */
function layout(link: 'absolute' | 'relative'): { base: string; ws: string } {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'fs-search-swap-')));
  const ws = join(base, 'ws');
  const outside = join(base, 'outside');
  mkdirSync(join(ws, 'dir'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(ws, 'dir', 'file.txt'), 'needle inside\n');
  writeFileSync(join(ws, 'top.txt'), 'needle top\n');
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'fixture');
  writeFileSync(join(ws, 'dir', 'untracked.txt'), 'needle untracked\n');
  // Same names as inside (read through the link by name) and names only outside (listed through it).
  // Three needles: a count read through the link says 3 where the inside file says 1.
  writeFileSync(join(outside, 'file.txt'), `needle ${CANARY} needle needle\n`);
  writeFileSync(join(outside, 'untracked.txt'), `needle ${CANARY}\n`);
  for (let i = 0; i < 8; i++) writeFileSync(join(outside, `${CANARY_NAME}-${i}.txt`), `needle ${CANARY}\n`);
  symlinkSync(link === 'absolute' ? outside : '../outside', join(ws, 'parked'));
  return { base, ws };
}

interface Tally {
  searches: number;
  escapes: number;
  insideSeen: number;
  insideMissed: number;
}

/**
 * `literal`: a first page scanned in process; `folded` (not case-sensitive): ripgrep handed the
 * descriptors; `count`: a full count on worker threads handed the descriptors; `filename`: names.
 */
type Mode = 'literal' | 'folded' | 'count' | 'filename';
const ARGS: Record<Mode, Record<string, unknown>> = {
  literal: { query: 'needle' },
  folded: { query: 'NEEDLE', case_sensitive: false },
  count: { query: 'needle', output: 'count_only' },
  filename: { mode: 'filename', query: '.txt', filename_match: 'substring' },
};

async function race(link: 'absolute' | 'relative', mode: Mode): Promise<Tally> {
  const { base, ws } = layout(link);
  const h = await harness(ws);
  const swapper = startSwapper(join(ws, 'dir'), join(ws, 'parked'));
  const t: Tally = { searches: 0, escapes: 0, insideSeen: 0, insideMissed: 0 };
  try {
    const started = Date.now();
    let issued = 0;
    const worker = async (): Promise<void> => {
      while (issued < SEARCHES && Date.now() - started < LOOP_BUDGET_MS) {
        issued++;
        const r = await h.call(ARGS[mode]);
        t.searches++;
        const res = r.result as FsSearchResult | null;
        const rows =
          mode === 'count'
            ? (res?.counts ?? []).map((c) => `${c.path}:${c.count === 1 ? 'inside' : CANARY}`)
            : mode === 'filename'
              ? (res?.matches ?? []).map((m) => m.path)
              : (res?.matches ?? []).map((m) => `${m.path}:${m.text}`);
        if (rows.some((row) => row.includes(CANARY) || row.includes(CANARY_NAME))) t.escapes++;
        // The inside file the swap hides: tracked (read by name) for content, untracked (listed by a walk) for names.
        if (rows.some((row) => row.startsWith(mode === 'filename' ? 'dir/untracked.txt' : 'dir/file.txt'))) t.insideSeen++;
        else t.insideMissed++;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  } finally {
    await swapper.stop();
    console.log(`swap race (${mode}, ${link} link): ${t.searches} searches, ${swapper.swaps()}+ swaps, escapes ${t.escapes}, inside file seen ${t.insideSeen}, missed ${t.insideMissed}`);
    await h.close();
    rmSync(base, { recursive: true, force: true });
  }
  return t;
}

describe('fs.search while a directory is swapped for a link to the outside', () => {
  for (const mode of ['literal', 'folded', 'count', 'filename'] as const) {
    for (const link of ['absolute', 'relative'] as const) {
      it(`${mode} search, ${link} link: ${SEARCHES} searches, 0 outside ${mode === 'filename' ? 'names' : 'content'}`, async () => {
        const t = await race(link, mode);
        assert.equal(t.escapes, 0);
        assert.ok(t.searches >= 100, `only ${t.searches} searches ran in the time budget`);
        assert.ok(t.insideSeen > 0, 'some searches ran while the real directory was there');
        if (mode !== 'filename') assert.ok(t.insideMissed > 0, 'some searches met the swap: the race really happened');
      });
    }
  }
});
