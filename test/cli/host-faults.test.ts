// What a user meets when the host, not the command line, is wrong: a workspace that is a file, a
// state dir that cannot be made, a missing token file, a port in use, a damaged toolgate.db. Each
// is one line `toolgate CMD: CODE: problem; fix: …` on stderr, exit 2, no stack trace, and the
// damaged database is left byte for byte as it was. doctor reports the damage instead of "ok".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

function run(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', input: '', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** One line, the code after the command, a fix, no stack frame. */
function assertOneLine(r: { code: number | null; out: string; err: string }, prefix: string, says: RegExp): void {
  const label = r.err;
  assert.equal(r.code, 2, label);
  assert.equal(r.out, '', label);
  assert.equal(r.err.trimEnd().split('\n').length, 1, `one line: ${label}`);
  assert.ok(r.err.startsWith(prefix), label);
  assert.match(r.err, /; fix: /, label);
  assert.doesNotMatch(r.err, /\n\s+at |internal error/, label);
  assert.match(r.err, says, label);
}

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const READ = ['call', 'fs.read', '--args', '{"path":"a.txt"}'];

test('a workspace that is a file or missing: invalid_workspace, one line with the fix', () => {
  const d = tempDirs('tg-hostfault');
  try {
    const file = join(d.base, 'afile');
    writeFileSync(file, 'x');
    assertOneLine(run([...READ, '--workspace', file, '--state-dir', d.state], d.base), 'toolgate call: invalid_workspace: ', /afile is a file, not a directory; fix: give the project's directory with --workspace/);
    assertOneLine(run([...READ, '--workspace', join(d.base, 'nope'), '--state-dir', d.state], d.base), 'toolgate call: invalid_workspace: ', /nope does not exist/);
    assertOneLine(run(['doctor', '--workspace', file], d.base), 'toolgate doctor: invalid_workspace: ', /is a file/);
  } finally {
    d.cleanup();
  }
});

test('a state dir that cannot be created: state_unavailable naming --state-dir', () => {
  const d = tempDirs('tg-hostfault');
  try {
    const file = join(d.base, 'afile');
    writeFileSync(file, 'x');
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    const r = run([...READ, '--state-dir', join(file, 'state')], d.workspace);
    assertOneLine(r, 'toolgate call: state_unavailable: ', /the state dir .*afile\/state cannot be created; fix: give a writable directory with --state-dir DIR .*ENOTDIR/);
  } finally {
    d.cleanup();
  }
});

test('a damaged toolgate.db: state_unavailable, the file untouched; doctor FAILs on it', () => {
  const d = tempDirs('tg-hostfault');
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    assert.equal(run([...READ, '--state-dir', d.state], d.workspace).code, 0);
    const db = join(d.state, 'toolgate.db');
    writeFileSync(db, Buffer.alloc(8192, 0x5a));
    const before = sha(db);
    const r = run([...READ, '--state-dir', d.state], d.workspace);
    assertOneLine(r, 'toolgate call: state_unavailable: ', /toolgate\.db is damaged and was left as it is; fix: move it aside .*not a database/);
    assert.equal(sha(db), before, 'nothing written to the damaged file');
    const doc = run(['doctor', '--state-dir', d.state], d.workspace);
    assert.equal(doc.code, 1, doc.out);
    assert.match(doc.out, /FAIL {2}database .*cannot be opened/);
    assert.equal(sha(db), before);
  } finally {
    d.cleanup();
  }
});

test('doctor runs PRAGMA integrity_check and audit verify: a database that opens but is damaged is FAIL, not ok', () => {
  const d = tempDirs('tg-hostfault');
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    for (let i = 0; i < 3; i++) assert.equal(run([...READ, '--state-dir', d.state], d.workspace).code, 0);
    const healthy = run(['doctor', '--state-dir', d.state], d.workspace);
    assert.equal(healthy.code, 0, healthy.out);
    assert.match(healthy.out, /ok {4}database .*passes PRAGMA integrity_check/);
    assert.match(healthy.out, /ok {4}receipt chains +3 receipts in 3 tasks verify/);
    // Two indexes sharing one b-tree: the file opens and reads, but its structure is wrong.
    const db = join(d.state, 'toolgate.db');
    const conn = new Database(db);
    conn.unsafeMode(true); // lifts SQLite's defensive mode, which forbids editing the schema table
    conn.pragma('writable_schema = ON');
    conn.prepare(`UPDATE sqlite_master SET rootpage = (SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_tasks_1') WHERE name = 'effects_by_state'`).run();
    conn.close();
    const before = sha(db);
    const r = run(['doctor', '--state-dir', d.state], d.workspace);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /FAIL {2}database .*fails PRAGMA integrity_check: .*wrong # of entries in index/);
    assert.match(r.out, /fix: move it aside/);
    assert.equal(sha(db), before, 'doctor changes nothing');
  } finally {
    d.cleanup();
  }
});

test('doctor FAILs on a receipt rewritten in place: the chain check of audit verify names it', () => {
  const d = tempDirs('tg-hostfault');
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    assert.equal(run([...READ, '--state-dir', d.state, '--task', 'task-c'], d.workspace).code, 0);
    const conn = new Database(join(d.state, 'toolgate.db'));
    // What someone with write access to the file can do: drop the append-only trigger, rewrite.
    conn.exec('DROP TRIGGER receipts_immutable_update');
    const changed = conn.prepare(`UPDATE receipts SET body = replace(body, '"succeeded"', '"failed"') WHERE task_id = 'task-c'`).run().changes;
    conn.close();
    assert.equal(changed, 1);
    const r = run(['doctor', '--state-dir', d.state], d.workspace);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /ok {4}database .*passes PRAGMA integrity_check/);
    assert.match(r.out, /FAIL {2}receipt chains +1 broken of 1 tasks; task task-c: receipt #1 /);
    assert.match(r.out, /fix: toolgate audit verify names each broken link/);
  } finally {
    d.cleanup();
  }
});

test('serve --token-file that does not exist: invalid_token_file, before anything opens', () => {
  const d = tempDirs('tg-hostfault');
  try {
    const r = run(['serve', '--http', '0', '--token-file', join(d.base, 'token'), '--state-dir', d.state], d.workspace);
    assertOneLine(r, 'toolgate serve: invalid_token_file: ', /--token-file .*token does not exist; fix: write the bearer token into it/);
  } finally {
    d.cleanup();
  }
});

test('serve --http on a port in use: port_unavailable with the fix, the process ends', async () => {
  const d = tempDirs('tg-hostfault');
  const holder = createServer();
  try {
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const child = spawn(process.execPath, [BIN, 'serve', '--http', String(port), '--state-dir', d.state], { cwd: d.workspace, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(killer);
    assertOneLine({ code, out, err }, 'toolgate serve: port_unavailable: ', new RegExp(`127\\.0\\.0\\.1:${port} is already in use; fix: .*--http 0 picks a free one`));
  } finally {
    await new Promise<void>((resolve) => holder.close(() => resolve()));
    d.cleanup();
  }
});

test('--grant for a task that already holds another grant: a warning on stderr, the call runs under the grant in force', () => {
  const d = tempDirs('tg-hostfault');
  try {
    writeFileSync(join(d.workspace, 'a.txt'), 'a\n');
    const narrow = join(d.base, 'narrow.json');
    const wide = join(d.base, 'wide.json');
    writeFileSync(narrow, JSON.stringify({ tools: ['fs.read'], effects: ['read'], read: ['**'] }));
    writeFileSync(wide, JSON.stringify({ tools: ['fs.read', 'fs.write'], effects: ['read', 'write'], read: ['**'], write: ['**'] }));
    const call = (grant: string): ReturnType<typeof run> => run([...READ, '--task', 'task-g', '--grant', grant, '--state-dir', d.state], d.workspace);
    const first = call(narrow);
    assert.equal(first.code, 0, first.err);
    assert.equal(first.err, '');
    const same = call(narrow);
    assert.equal(same.code, 0);
    assert.equal(same.err, '', 'the same grant again is no news');
    const other = call(wide);
    assert.equal(other.code, 0, other.err);
    assert.equal(other.err, 'toolgate call: warning: task task-g already holds the grant issued at its first call; --grant ' + wide + ' is ignored for it (a task keeps its grant: give a new --task to issue this one)\n');
    const write = run(['call', 'fs.write', '--args', '{"path":"b.txt","content":"b"}', '--task', 'task-g', '--grant', wide, '--state-dir', d.state], d.workspace);
    assert.equal(write.code, 1, 'the narrow grant is still in force');
    assert.match(write.err, /--grant .*wide\.json is ignored/);
  } finally {
    d.cleanup();
  }
});
