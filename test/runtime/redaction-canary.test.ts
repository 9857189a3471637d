import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type Receipt } from '../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import type { TaskGrant } from '../../src/policy/index.js';
import { anyTool } from '../../src/registry/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { createShellExec } from '../../src/tools/shell-exec/tool.js';
import { filesUnder } from '../support/fixtures.js';

// Fresh canaries, planted in every place a call can carry a secret, must appear nowhere under
// the state dir: raw bytes of the database, its WAL and every artifact (docs/redaction.md).

const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'] };
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const pick = (alphabet: string, n: number): string => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');

interface Canaries {
  readonly env: string;
  readonly runtime: string;
  readonly aws: string;
  readonly github: string;
  readonly password: string;
  readonly jwt: string;
  /** Body lines of a fresh private key. */
  readonly pemLines: readonly string[];
  readonly pem: string;
  /** A token that fs.read's page edge cuts in two, and its two halves. */
  readonly straddling: string;
  readonly pathAws: string;
  readonly argPassword: string;
  readonly shellSplit: string;
}

function freshCanaries(): Canaries {
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  return {
    env: `tgenv-${pick(ALNUM, 24)}`,
    runtime: `tgrt-${pick(ALNUM, 24)}`,
    aws: `AKIA${pick(UPPER, 16)}`,
    github: `ghp_${pick(ALNUM, 36)}`,
    password: `Pw${pick(ALNUM, 20)}`,
    jwt: `eyJhbGciOiJIUzI1NiJ9.eyJ${pick(ALNUM, 30)}.${pick(ALNUM, 43)}`,
    pemLines: pem.split('\n').filter((l) => l.length === 64),
    pem,
    straddling: `ghp_${pick(ALNUM, 36)}`,
    pathAws: `AKIA${pick(UPPER, 16)}`,
    argPassword: `Arg${pick(ALNUM, 20)}`,
    shellSplit: `ghp_${pick(ALNUM, 36)}`,
  };
}

/** Every string that must not be found, with where it was planted. */
function needles(c: Canaries): [string, string][] {
  return [
    ['env secret passed to shell.exec', c.env],
    ['RuntimeOptions.secrets value', c.runtime],
    ['AWS key id in a file', c.aws],
    ['GitHub token in a file', c.github],
    ['password= value in a file', c.password],
    ['JWT in a file', c.jwt],
    ...c.pemLines.map((l, i): [string, string] => [`private key body line ${i}`, l]),
    ['first half of a token cut by a page edge', c.straddling.slice(0, 20)],
    ['second half of a token cut by a page edge', c.straddling.slice(20)],
    ['AWS key id in a path', c.pathAws],
    ['token written by the command in two writes', c.shellSplit],
    ['first half of the split token', c.shellSplit.slice(0, 22)],
    ['second half of the split token', c.shellSplit.slice(22)],
  ];
}


function leaks(state: string, list: readonly [string, string][]): string[] {
  const files = filesUnder(state).map((f) => ({ f, bytes: readFileSync(f) }));
  const out: string[] = [];
  for (const [where, needle] of list) {
    for (const { f, bytes } of files) if (bytes.includes(needle)) out.push(`${where} in ${f.slice(state.length + 1)}`);
  }
  return out;
}

function call(task: string, tool: string, args: Record<string, unknown>): Record<string, unknown> {
  return { protocol_version: PROTOCOL_VERSION, task_id: task, tool, arguments: args };
}

interface Rig {
  readonly rt: Runtime;
  readonly workspace: string;
  readonly state: string;
  readonly base: string;
}

async function rig(c: Canaries): Promise<Rig> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-canary-')));
  const workspace = join(base, 'ws');
  const state = join(base, 'state');
  mkdirSync(join(workspace, 'dir'), { recursive: true });
  const filler = (n: number): string => Array.from({ length: n }, (_, i) => `ordinary line ${i} of text\n`).join('');
  writeFileSync(
    join(workspace, 'notes.txt'),
    `${filler(5)}aws_key = ${c.aws}\nGITHUB=${c.github}\ndb password=${c.password}\nAuthorization: ${c.jwt}\nruntime ${c.runtime}\n${c.pem}${filler(5)}`,
  );
  // A page of 4,096 bytes ends 20 characters into the token; a second file starts a page in a key body.
  const lead = 'x'.repeat(4096 - 20 - 1) + ' ';
  writeFileSync(join(workspace, 'paged.txt'), `${lead}${c.straddling} tail\n${filler(3)}`);
  const beginAt = c.pem.indexOf('\n') + 1;
  writeFileSync(join(workspace, 'key-paged.txt'), 'y'.repeat(4096 - beginAt) + c.pem + filler(3));
  writeFileSync(join(workspace, 'dir', `${c.pathAws}.txt`), 'a file whose name is a key id\n');
  writeFileSync(join(workspace, 'split-token.txt'), c.shellSplit);
  const shell = createShellExec({ graceMs: 300, hostEnv: { TG_CANARY: c.env } });
  const tools = [...builtinTools().filter((t) => t.name !== 'shell.exec'), anyTool(shell)];
  const rt = await createRuntime({ workspace, stateDir: state, tools, grant: GRANT, secrets: [c.runtime] });
  return { rt, workspace, state, base };
}

async function readAllPages(rt: Runtime, task: string, path: string, maxBytes: number): Promise<Receipt[]> {
  const out: Receipt[] = [];
  let continuation: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await rt.call(call(task, 'fs.read', { path, max_bytes: maxBytes, ...(continuation ? { continuation } : {}) }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    out.push(r);
    continuation = (r.result as { continuation: string | null }).continuation ?? undefined;
    if (!continuation) break;
  }
  return out;
}

test('fresh canaries planted in env, files, pages, output, errors and paths appear nowhere under the state dir', async () => {
  const c = freshCanaries();
  const r = await rig(c);
  try {
    const task = 'canary-task';
    const receipts: Receipt[] = [];
    // File contents, read whole, by pages that cut a token, and by pages that start in a key body.
    receipts.push(...(await readAllPages(r.rt, task, 'notes.txt', 256 * 1024)));
    const paged = await readAllPages(r.rt, task, 'paged.txt', 4096);
    assert.ok(paged.length >= 2, 'the token straddles a page edge');
    receipts.push(...paged, ...(await readAllPages(r.rt, task, 'key-paged.txt', 4096)));
    // Search: content lines and file names.
    const searches = [
      await r.rt.call(call(task, 'fs.search', { query: 'password', mode: 'literal', context_lines: 3 })),
      await r.rt.call(call(task, 'fs.search', { query: 'AKIA', mode: 'filename', filename_match: 'substring' })),
      await r.rt.call(call(task, 'fs.search', { query: 'ghp_', mode: 'literal' })),
    ];
    for (const s of searches) {
      assert.equal(s.status, 'succeeded', JSON.stringify(s.error));
      const found = s.result as { matches: unknown[] | null; paths: unknown[] | null };
      assert.ok((found.matches ?? found.paths ?? []).length > 0, 'the search found the planted lines and names');
    }
    receipts.push(...searches);
    // A path holding a key id: result.path and normalized_action.
    receipts.push(await r.rt.call(call(task, 'fs.read', { path: `dir/${c.pathAws}.txt` })));
    // Error messages and data: a missing path naming the runtime secret and a key id.
    const missing = await r.rt.call(call(task, 'fs.read', { path: `dir/missing-${c.runtime}-${c.pathAws}.txt` }));
    assert.equal(missing.error?.code, 'not_found');
    receipts.push(missing);
    // Shell: env secret and file secrets printed past the preview (so an artifact is written),
    // a token written in two writes, output on stderr, and a failing exit.
    const shell = await r.rt.call(
      call(task, 'shell.exec', {
        shell: 'bash',
        script: 'for i in $(seq 400); do echo "line $i $TG_CANARY"; cat notes.txt; done; head -c 9 split-token.txt; sleep 0.2; tail -c +10 split-token.txt; echo; cat notes.txt >&2; echo "$TG_CANARY" >&2; exit 3',
        env: { secret: ['TG_CANARY'] },
        collect: ['notes.txt'],
      }),
    );
    assert.equal(shell.status, 'failed', JSON.stringify(shell.error));
    const res = shell.result as { stdout: { artifact: { digest: string } | null; preview: string }; collected: { artifact: unknown }[] };
    assert.ok(res.stdout.artifact, 'stdout outgrew the preview: an artifact was written');
    assert.ok(res.collected[0]?.artifact, 'the collected file is an artifact');
    receipts.push(shell);

    const list = needles(c);
    const inReceipts = list.filter(([, n]) => receipts.some((x) => JSON.stringify(x).includes(n))).map(([w]) => w);
    assert.deepEqual(inReceipts, [], 'nothing returned holds a canary');
    assert.deepEqual(leaks(r.state, list), [], 'live database, WAL and artifacts');
    // Control: the scan does read the artifacts and the database.
    const stored = r.rt.artifacts.get(res.stdout.artifact.digest as never).toString();
    assert.match(stored, /line 400 \[REDACTED\]/);
    assert.match(stored, /aws_key = \[REDACTED:aws-access-key-id\]/);
    assert.ok(leaks(r.state, [['control', 'ordinary line 3 of text']]).length > 0);
    await r.rt.close();
    assert.deepEqual(leaks(r.state, list), [], 'after close (WAL checkpointed into the database)');
  } finally {
    await r.rt.close().catch(() => {});
    rmSync(r.base, { recursive: true, force: true });
  }
});

test('a secret in the arguments of an effectful call is nowhere under the state dir', async () => {
  const c = freshCanaries();
  const r = await rig(c);
  try {
    const receipt = await r.rt.call(call('canary-args', 'shell.exec', { shell: 'bash', script: `echo "password=${c.argPassword}"; echo "password=${c.argPassword}" >&2` }));
    assert.equal(receipt.status, 'succeeded', JSON.stringify(receipt.error));
    assert.ok(!JSON.stringify(receipt).includes(c.argPassword));
    const needle: [string, string][] = [['password in a shell.exec script', c.argPassword]];
    // Everything under the state dir, raw bytes: the DB (receipts and the effect records, which
    // keep an intent, not the arguments), its WAL, and every artifact.
    assert.deepEqual(leaks(r.state, needle), [], 'state dir');
  } finally {
    await r.rt.close();
    rmSync(r.base, { recursive: true, force: true });
  }
});
