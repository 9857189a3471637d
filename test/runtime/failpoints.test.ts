// Issue 21, fault injection: every tool through every failpoint. A child runtime makes one keyed
// call with TOOLGATE_FAILPOINT armed and is SIGKILLed at that stage boundary (src/protocol/failpoint.ts);
// then a runtime in this process opens the same state dir, runs reconcile, retries the same call
// (same idempotency key) and asks it again. Judged per case: the effect happened at most once (no
// duplicate line or marker, no second write of a file already written), a receipt answers the key
// (and it is the one committed before the crash, if any), an effect already visible at the crash
// is answered by a replay, a reconciled receipt or reconciliation_required (never run again as if
// new), the workspace is exactly its pre-image or post-image, and the audit chain verifies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime } from '../../src/runtime/index.js';
import { FAILPOINTS, FAILPOINT_ENV, type Failpoint } from '../../src/protocol/index.js';
import { Provider } from '../tools/http-request/provider.js';
import { PROVIDER_ADDRESS } from '../tools/http-request/harness.js';
import { failpointRuntimeOptions } from './failpoint-options.js';

const CHILD = fileURLToPath(new URL('./failpoint-child.ts', import.meta.url));
const KEY = 'failpoint-key';
const TASK = 'failpoint-task';

const read = (ws: string, p: string): string => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), 'utf8') : '<absent>');
const ino = (ws: string, p: string): string => (existsSync(join(ws, p)) ? String(statSync(join(ws, p)).ino) : '-');

interface ToolCase {
  readonly tool: string;
  readonly kind: 'fs' | 'http';
  readonly args: Record<string, unknown>;
  readonly prepare: (ws: string) => void;
  /** The touched paths' contents: a duplicate effect (a line inserted twice, two markers) is neither image. */
  readonly image: (ws: string) => string;
  readonly pre: string;
  readonly post: string;
  /** Which inodes hold the result: a file written again after the crash gets a new one. */
  readonly identity: (ws: string) => string;
  readonly close?: () => Promise<void>;
  /** A multi-step effect: a crash inside it may leave a mix (the first file replaced, not the second). */
  readonly tornAtCrash?: boolean;
}

const FS_CASES: readonly ToolCase[] = [
  {
    kind: 'fs',
    tool: 'fs.write',
    args: { path: 'w.txt', content: 'new\n', mode: 'create_or_replace' },
    prepare: (ws) => writeFileSync(join(ws, 'w.txt'), 'old\n'),
    image: (ws) => read(ws, 'w.txt'),
    pre: 'old\n',
    post: 'new\n',
    identity: (ws) => ino(ws, 'w.txt'),
  },
  {
    kind: 'fs',
    tool: 'fs.patch',
    args: { files: [{ path: 'a.txt', edits: [{ old: 'one\n', new: 'one\ninserted\n' }] }] },
    prepare: (ws) => writeFileSync(join(ws, 'a.txt'), 'one\ntwo\n'),
    image: (ws) => read(ws, 'a.txt'),
    pre: 'one\ntwo\n',
    post: 'one\ninserted\ntwo\n',
    identity: (ws) => ino(ws, 'a.txt'),
  },
  {
    // Two files in one all-or-nothing patch: during_effect fires after the first is in place.
    kind: 'fs',
    tool: 'fs.patch',
    args: {
      files: [
        { path: 'p.txt', edits: [{ old: 'one\n', new: 'one\ninserted\n' }] },
        { path: 'q.txt', edits: [{ old: 'one\n', new: 'one\ninserted\n' }] },
      ],
    },
    prepare: (ws) => {
      writeFileSync(join(ws, 'p.txt'), 'one\ntwo\n');
      writeFileSync(join(ws, 'q.txt'), 'one\ntwo\n');
    },
    image: (ws) => `${read(ws, 'p.txt')}|${read(ws, 'q.txt')}`,
    pre: 'one\ntwo\n|one\ntwo\n',
    post: 'one\ninserted\ntwo\n|one\ninserted\ntwo\n',
    identity: (ws) => `${ino(ws, 'p.txt')}|${ino(ws, 'q.txt')}`,
    tornAtCrash: true,
  },
  {
    kind: 'fs',
    tool: 'fs.delete',
    args: { path: 'gone.txt' },
    prepare: (ws) => writeFileSync(join(ws, 'gone.txt'), 'x\n'),
    image: (ws) => read(ws, 'gone.txt'),
    pre: 'x\n',
    post: '<absent>',
    identity: (ws) => ino(ws, 'gone.txt'),
  },
  {
    kind: 'fs',
    tool: 'fs.rename',
    args: { from: 'from.txt', to: 'to.txt' },
    prepare: (ws) => writeFileSync(join(ws, 'from.txt'), 'x\n'),
    image: (ws) => `${read(ws, 'from.txt')}|${read(ws, 'to.txt')}`,
    pre: 'x\n|<absent>',
    post: '<absent>|x\n',
    identity: (ws) => `${ino(ws, 'from.txt')}|${ino(ws, 'to.txt')}`,
  },
  {
    kind: 'fs',
    tool: 'shell.exec',
    // The marker line is appended before the first output, which is where during_effect fires.
    args: { argv: ['sh', '-c', 'echo ran >> marker.txt; echo done'] },
    prepare: () => {},
    image: (ws) => read(ws, 'marker.txt'),
    pre: '<absent>',
    post: 'ran\n',
    identity: (ws) => ino(ws, 'marker.txt'),
  },
];

/**
 * http.request POST to a provider that keeps effects by Idempotency-Key and counts every write
 * (test/tools/http-request/provider.ts), a fresh one per case: one effect and one write is the
 * post-image; a second POST, even one the provider dedupes, is neither image.
 */
async function httpCase(): Promise<ToolCase> {
  const provider = await Provider.start(PROVIDER_ADDRESS);
  const image = (): string => `effects=${provider.effects.size} writes=${provider.writes}`;
  return {
    kind: 'http',
    tool: 'http.request',
    args: { method: 'POST', url: `http://${PROVIDER_ADDRESS}:${provider.port}/items`, body: 'once' },
    prepare: () => {},
    image,
    pre: 'effects=0 writes=0',
    post: 'effects=1 writes=1',
    identity: () => [...provider.effects.values()].join(','),
    close: () => provider.close(),
  };
}

/** Named makers (the test's name); the http provider is started per case. */
const CASES: readonly { readonly name: string; readonly make: () => Promise<ToolCase> }[] = [
  ...FS_CASES.map((c) => ({ name: c.tornAtCrash ? `${c.tool} (two files)` : c.tool, make: () => Promise.resolve(c) })),
  { name: 'http.request', make: httpCase },
];

function runChild(workspace: string, state: string, env: Record<string, unknown>, kind: ToolCase['kind'], point: Failpoint): Promise<{ signal: string | null; out: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, workspace, state, JSON.stringify(env), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, [FAILPOINT_ENV]: point },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000); // a hung child fails below (out is empty)
  return new Promise((resolve) =>
    child.once('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ signal, out });
    }),
  );
}

/** The key's effect record and its receipt as the crash left them (read before any runtime opens). */
function crashRecord(state: string): { state: string | null; receipt_id: string | null; receipts: number } {
  const db = new Database(join(state, 'toolgate.db'), { readonly: true });
  try {
    const row = db.prepare(`SELECT state, receipt_id FROM effects WHERE task_id = ? AND idempotency_key = ?`).get(TASK, KEY) as { state: string; receipt_id: string | null } | undefined;
    const { n } = db.prepare(`SELECT count(*) AS n FROM receipts WHERE task_id = ? AND idempotency_key = ?`).get(TASK, KEY) as { n: number };
    return { state: row?.state ?? null, receipt_id: row?.receipt_id ?? null, receipts: n };
  } finally {
    db.close();
  }
}

interface Row {
  readonly case: string;
  readonly at_crash: 'pre' | 'post' | 'torn';
  readonly record: string;
  readonly reconciled: string;
  readonly retry: string;
  readonly final: 'pre' | 'post' | 'torn';
  readonly problems: readonly string[];
}

async function runCase(c: ToolCase, point: Failpoint): Promise<Row> {
  const dirs = tempDirs('tg-fp');
  try {
    c.prepare(dirs.workspace);
    const env = envelope(c.tool, c.args, { idempotency_key: KEY, task_id: TASK });
    const died = await runChild(dirs.workspace, dirs.state, env, c.kind, point);
    const problems: string[] = [];
    if (died.signal !== 'SIGKILL') problems.push(`the child was not killed at ${point}: ${died.signal} ${died.out.trim()}`);
    const imageOf = (ws: string): Row['at_crash'] => (c.image(ws) === c.pre ? 'pre' : c.image(ws) === c.post ? 'post' : 'torn');
    const atCrash = imageOf(dirs.workspace);
    const identityAtCrash = c.identity(dirs.workspace);
    const record = crashRecord(dirs.state);
    const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, ...failpointRuntimeOptions(c.kind) });
    try {
      const report = await rt.reconcile();
      const retry = await rt.call(env);
      const again = await rt.call(env);
      const final = imageOf(dirs.workspace);
      const code = retry.error?.code ?? null;
      const reconciliation = retry.evidence['reconciliation'] !== undefined;
      const flagged = retry.replay === true || reconciliation || code === 'reconciliation_required';

      if (atCrash === 'torn' && c.tornAtCrash !== true) problems.push(`torn workspace at the crash: ${JSON.stringify(c.image(dirs.workspace))}`);
      if (final === 'torn') problems.push(`duplicate or torn effect: ${JSON.stringify(c.image(dirs.workspace))}`);
      // An effect visible at the crash must not run again: the same inode(s) hold the result.
      if (atCrash === 'post' && c.identity(dirs.workspace) !== identityAtCrash) problems.push('duplicate effect: the result was written again');
      // A set torn at the crash is settled by reconcile (rolled back), not run again over the mix.
      if (atCrash === 'torn' && !report.entries.some((e) => e.settled === 'released' || e.settled === 'completed') && !flagged) problems.push('a torn set was not reconciled');
      if (atCrash === 'post' && !flagged) problems.push(`an effect done before the crash was not flagged: ${retry.status} ${code}`);
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
    dirs.cleanup();
    await c.close?.();
  }
}

for (const { name, make } of CASES) {
  test(`${name}: through every failpoint, no duplicate effect, no lost receipt, ambiguity flagged, pre- or post-image, audit verifies`, { timeout: 10 * 60_000 }, async (t) => {
    const rows: Row[] = [];
    for (const point of FAILPOINTS) rows.push(await runCase(await make(), point));
    for (const r of rows) t.diagnostic(`${r.case}: crash ${r.at_crash} (${r.record}), reconcile ${r.reconciled}, retry ${r.retry}, final ${r.final}${r.problems.length ? ` PROBLEMS ${r.problems.join('; ')}` : ''}`);
    assert.equal(rows.length, FAILPOINTS.length);
    assert.deepEqual(rows.filter((r) => r.problems.length > 0).map((r) => `${r.case}: ${r.problems.join('; ')}`), []);
  });
}
