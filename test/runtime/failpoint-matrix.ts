// The failpoint matrix's judge (issue 21), shared by its test files: a child runtime makes one
// keyed call with TOOLGATE_FAILPOINT armed and is SIGKILLed at that stage boundary
// (src/protocol/failpoint.ts); then a runtime in the test opens the same state (SQLite state dir
// or PostgreSQL database), runs reconcile, retries the same call (same idempotency key) and asks
// it again. Judged per case: the armed failpoint fired exactly when the case's table says the tool
// passes it; the effect happened at most once; a receipt answers the key (the one committed before
// the crash, if any); an effect visible at the crash is answered by a replay, a reconciled receipt
// or reconciliation_required with the record ambiguous; the workspace is its pre- or post-image;
// the audit chain verifies.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime } from '../../src/runtime/index.js';
import { FAILPOINTS, FAILPOINT_ENV, type Failpoint } from '../../src/protocol/index.js';
import { failpointRuntimeOptions, type RuntimeKind, type RuntimeSpec } from './failpoint-options.js';

const CHILD = fileURLToPath(new URL('./failpoint-child.ts', import.meta.url));
export const KEY = 'failpoint-key';
export const TASK = 'failpoint-task';

type Dirs = ReturnType<typeof tempDirs>;

/** What a case's preparation may change: the arguments (a receipt id made in it), the task, the workspace (a subtask's worktree). */
export interface Setup {
  readonly args?: Record<string, unknown>;
  readonly task?: string;
  readonly workspace?: string;
  /** The upstream fixture's data dir (made in the case's dirs). */
  readonly upstreamData?: string;
}

export interface ToolCase {
  readonly tool: string;
  readonly kind: RuntimeKind;
  readonly args: Record<string, unknown>;
  /** The failpoints the tool passes (default: all six); the child must run to its answer at the others. */
  readonly passes?: readonly Failpoint[];
  readonly prepare: (ws: string, dirs: Dirs) => void | Setup | Promise<void | Setup>;
  /** The touched resources' state: a duplicate effect (a line inserted twice, two markers) is neither image. */
  readonly image: (ws: string) => string;
  readonly pre: string;
  readonly post: string;
  /** Which inodes (or ids) hold the result: a result made again after the crash gets new ones. */
  readonly identity: (ws: string) => string;
  readonly close?: () => Promise<void>;
  /** A multi-step effect: a crash inside it may leave a mix (the first file replaced, not the second). */
  readonly tornAtCrash?: boolean;
  /** safe_to_repeat: the retry may run it again over its own completed effect (a fetch sets the same ref). */
  readonly repeatable?: boolean;
}

export interface Row {
  readonly case: string;
  readonly killed: boolean;
  readonly at_crash: 'pre' | 'post' | 'torn';
  readonly record: string;
  readonly reconciled: string;
  readonly retry: string;
  readonly final: 'pre' | 'post' | 'torn';
  readonly problems: readonly string[];
}

function runChild(workspace: string, state: string, env: Record<string, unknown>, spec: RuntimeSpec, points: readonly Failpoint[]): Promise<{ signal: string | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, workspace, state, JSON.stringify(env), JSON.stringify(spec)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, [FAILPOINT_ENV]: points.join(',') },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 150_000); // a hung child fails below (out is empty)
  return new Promise((resolve) =>
    child.once('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ signal, out });
    }),
  );
}

interface CrashRecord {
  readonly state: string | null;
  readonly receipt_id: string | null;
}

/** The key's effect record as the crash left it, read before any runtime opens the state. */
async function crashRecord(state: string, task: string, pgUrl: string | undefined): Promise<CrashRecord> {
  if (pgUrl !== undefined) {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      const r = await client.query<{ state: string; receipt_id: string | null }>(`SELECT state, receipt_id FROM effects WHERE task_id = $1 AND idempotency_key = $2`, [task, KEY]);
      return { state: r.rows[0]?.state ?? null, receipt_id: r.rows[0]?.receipt_id ?? null };
    } catch (e) {
      // No effects table yet: the child died before its store was migrated (it never is: the claim comes first).
      return { state: `unreadable: ${(e as Error).message}`, receipt_id: null };
    } finally {
      await client.end();
    }
  }
  const db = new Database(join(state, 'toolgate.db'), { readonly: true });
  try {
    const row = db.prepare(`SELECT state, receipt_id FROM effects WHERE task_id = ? AND idempotency_key = ?`).get(task, KEY) as { state: string; receipt_id: string | null } | undefined;
    return { state: row?.state ?? null, receipt_id: row?.receipt_id ?? null };
  } finally {
    db.close();
  }
}

/**
 * One crash and its recovery. `points`: one failpoint the tool passes (the child must die there),
 * or every failpoint it does not pass, armed together (the child must run to its answer).
 */
export async function runCase(c: ToolCase, points: readonly Failpoint[], store: { pg?: () => Promise<{ url: string; drop(): Promise<void> }> } = {}): Promise<Row> {
  const dirs = tempDirs('tg-fp');
  const db = store.pg ? await store.pg() : null;
  try {
    const setup = (await c.prepare(dirs.workspace, dirs)) ?? {};
    const spec: RuntimeSpec = { kind: c.kind, ...(db ? { pg: db.url } : {}), ...(setup.upstreamData ? { upstreamData: setup.upstreamData } : {}) };
    const ws = setup.workspace ?? dirs.workspace;
    const task = setup.task ?? TASK;
    const env = envelope(c.tool, setup.args ?? c.args, { idempotency_key: KEY, task_id: task });
    const point = points.join('+');
    const passed = points.filter((p) => (c.passes ?? FAILPOINTS).includes(p));
    if (passed.length !== 0 && points.length !== 1) throw new Error(`arm one passed failpoint at a time, or only ones the tool does not pass: ${point}`);
    const passes = passed.length === 1;
    const died = await runChild(ws, dirs.state, env, spec, points);
    const killed = died.signal === 'SIGKILL';
    const problems: string[] = [];
    if (passes && !killed) problems.push(`the armed failpoint ${point} never fired: ${died.signal} ${died.out.trim()}`);
    if (!passes && killed) problems.push(`the table says ${c.tool} does not pass ${point}, but one fired`);
    if (!passes && !died.out.startsWith('NOT KILLED: succeeded')) problems.push(`without its failpoint the call did not succeed: ${died.out.trim()}`);
    // A read's pre- and post-image are one: it counts as post.
    const imageOf = (w: string): Row['at_crash'] => (c.image(w) === c.post ? 'post' : c.image(w) === c.pre ? 'pre' : 'torn');
    const atCrash = imageOf(ws);
    const identityAtCrash = c.identity(ws);
    const record = await crashRecord(dirs.state, task, db?.url);
    const rt = await createRuntime({ workspace: ws, stateDir: dirs.state, ...failpointRuntimeOptions(spec) });
    try {
      const report = await rt.reconcile();
      const retry = await rt.call(env);
      const again = await rt.call(env);
      const final = imageOf(ws);
      const code = retry.error?.code ?? null;
      const reconciliation = retry.evidence['reconciliation'] !== undefined;
      const flagged = retry.replay === true || reconciliation || code === 'reconciliation_required';

      if (atCrash === 'torn' && c.tornAtCrash !== true) problems.push(`torn at the crash: ${JSON.stringify(c.image(ws))}`);
      if (final === 'torn') problems.push(`duplicate or torn effect: ${JSON.stringify(c.image(ws))}`);
      // An effect visible at the crash must not run again: the same inode(s) or ids hold the result.
      if (atCrash === 'post' && c.identity(ws) !== identityAtCrash) problems.push(`duplicate effect: the result was made again (${identityAtCrash} → ${c.identity(ws)})`);
      // A torn effect is settled by reconcile (rolled back), or finished by a repeatable tool's retry.
      const finished = c.repeatable === true && retry.status === 'succeeded' && final === 'post';
      if (atCrash === 'torn' && !report.entries.some((e) => e.settled === 'released' || e.settled === 'completed') && !flagged && !finished) problems.push('a torn effect was not reconciled');
      // A read has the same pre- and post-image: nothing to flag.
      if (atCrash === 'post' && c.pre !== c.post && c.repeatable !== true && !flagged) problems.push(`an effect done before the crash was not flagged: ${retry.status} ${code}`);
      // No lost receipt: the retry's receipt is stored, and it is the one committed before the crash.
      if ((await rt.getReceipt(retry.receipt_id)) === undefined) problems.push('the retry’s receipt is not stored');
      if (record.receipt_id !== null && retry.receipt_id !== record.receipt_id) problems.push(`lost receipt: ${record.receipt_id} committed before the crash, ${retry.receipt_id} answered`);
      if (retry.status === 'succeeded' && (again.receipt_id !== retry.receipt_id || again.replay !== true)) problems.push('the second retry did not replay the receipt');
      if (retry.status === 'succeeded' && final !== 'post') problems.push(`succeeded but the workspace is ${final}`);
      if (retry.status !== 'succeeded' && code !== 'reconciliation_required') problems.push(`the retry failed: ${retry.status} ${JSON.stringify(retry.error)}`);
      if (code === 'reconciliation_required') {
        const ambiguous = (await rt.listAmbiguous()).some((r) => r.idempotency_key === KEY);
        if (!ambiguous) problems.push('reconciliation_required but the record is not ambiguous');
      }
      const chain = await rt.store.verifyChain();
      if (!chain.ok) problems.push(`audit verify: ${JSON.stringify(chain.broken)}`);
      return {
        case: `${c.tool} × ${point}`,
        killed,
        at_crash: atCrash,
        record: `${record.state ?? 'none'}${record.receipt_id ? '+receipt' : ''}`,
        reconciled: report.entries.map((e) => e.settled).join(',') || '-',
        retry: `${retry.status}${code ? `/${code}` : ''}${retry.replay ? ' (replay)' : ''}${reconciliation ? ' (reconciled)' : ''}`,
        final,
        problems,
      };
    } finally {
      await rt.close();
    }
  } finally {
    await c.close?.();
    await db?.drop();
    dirs.cleanup();
  }
}

export function describeRow(r: Row): string {
  return `${r.case}: ${r.killed ? 'killed' : 'ran to its answer'}, crash ${r.at_crash} (${r.record}), reconcile ${r.reconciled}, retry ${r.retry}, final ${r.final}${r.problems.length ? ` PROBLEMS ${r.problems.join('; ')}` : ''}`;
}

export interface NamedCase {
  readonly name: string;
  readonly make: () => Promise<ToolCase>;
}

/** At most `n` holders at once; the rest wait in order. */
function semaphore(n: number): <T>(work: () => Promise<T>) => Promise<T> {
  let free = n;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (free === 0) await new Promise<void>((resolve) => waiting.push(resolve));
    else free--;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free++;
    }
  };
}

/**
 * One test per tool, the tests concurrent; every (tool × failpoint) case of the file takes one of
 * `lanes` slots (each case has its own dirs, state and servers), so a name filter runs only its tool.
 */
export function matrixTests(title: string, cases: readonly NamedCase[], o: { lanes?: number; pg?: () => Promise<{ url: string; drop(): Promise<void> }> } = {}): void {
  const slot = semaphore(o.lanes ?? 3);
  describe(title, { concurrency: true }, () => {
    for (const c of cases) {
      it(`${c.name}: through every failpoint, no duplicate effect, no lost receipt, ambiguity flagged, pre- or post-image, audit verifies`, { timeout: 15 * 60_000 }, async (t) => {
        // Each failpoint the tool passes alone; the ones it does not pass armed together in one child.
        const probe = await c.make();
        const passes = probe.passes ?? FAILPOINTS;
        await probe.close?.();
        const skipped = FAILPOINTS.filter((p) => !passes.includes(p));
        const jobs: (readonly Failpoint[])[] = [...passes.map((p) => [p]), ...(skipped.length > 0 ? [skipped] : [])];
        const rows = await Promise.all(
          jobs.map((points) =>
            slot(async (): Promise<Row> => {
              try {
                return await runCase(await c.make(), points, o.pg ? { pg: o.pg } : {});
              } catch (e) {
                return { case: `${c.name} × ${points.join('+')}`, killed: false, at_crash: 'torn', record: '-', reconciled: '-', retry: '-', final: 'torn', problems: [`the case threw: ${(e as Error).stack ?? String(e)}`] };
              }
            }),
          ),
        );
        for (const r of rows) t.diagnostic(describeRow(r));
        assert.equal(rows.length, jobs.length);
        assert.equal(rows.filter((r) => r.killed).length, passes.length, 'killed at each failpoint the tool passes');
        assert.deepEqual(rows.filter((r) => r.problems.length > 0).map((r) => `${r.case}: ${r.problems.join('; ')}`), []);
      });
    }
  });
}
