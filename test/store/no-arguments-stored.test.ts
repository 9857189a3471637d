// Item 15 of issue 10: the effects table kept every effectful call's arguments unredacted (file
// contents, patch text, argv, scripts, env.set, stdin, injected secrets). Fresh canaries are
// planted in the arguments of each effectful tool; none may appear in the raw bytes of the DB,
// its WAL or any artifact. And a database of the old schema loses them at migration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { envelope, filesUnder, tempDirs } from '../support/fixtures.js';
import { createRuntime, type TaskGrant } from '../../src/runtime/index.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { CORE_MIGRATIONS, migrate } from '../../src/store/sqlite/migrations.js';

const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**', '.'] };
const canary = (where: string): string => `CANARY${where}${randomBytes(12).toString('hex')}`;


function whereFound(state: string, canaries: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of filesUnder(state)) {
    const bytes = readFileSync(file);
    for (const c of canaries) if (bytes.includes(c)) found.push(`${c.slice(0, 20)}… in ${file.slice(state.length)}`);
  }
  return found;
}

test('no argument value of any effectful tool reaches the DB, the WAL or the artifacts (canaries in each)', async () => {
  const d = tempDirs();
  const c = {
    writeContent: canary('writecontent'),
    patchNew: canary('patchnew'),
    diffText: canary('difftext'),
    script: canary('script'),
    argv: canary('argv'),
    envSet: canary('envset'),
    stdin: canary('stdin'),
    injected: canary('injected'),
  };
  // Values the receipts themselves may echo (a diff shows its new lines) are declared secrets,
  // so that the receipt redacts them; the effect record must not keep them either way.
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT, secrets: [c.patchNew, c.diffText, c.injected] });
  try {
    writeFileSync(join(d.workspace, 'p.txt'), 'one\ntwo\n');
    writeFileSync(join(d.workspace, 'q.txt'), 'alpha\n');
    mkdirSync(join(d.workspace, 'dir'));
    const calls = [
      envelope('fs.write', { path: 'w.txt', content: `${c.writeContent}\n` }, { idempotency_key: 'k1' }),
      envelope('fs.patch', { files: [{ path: 'p.txt', edits: [{ old: 'two\n', new: `${c.patchNew} ${c.injected}\n` }] }] }, { idempotency_key: 'k2' }),
      envelope('fs.patch', { unified_diff: `--- a/q.txt\n+++ b/q.txt\n@@ -1 +1 @@\n-alpha\n+${c.diffText}\n` }, { idempotency_key: 'k3' }),
      envelope('shell.exec', { shell: 'sh', script: `true # ${c.script}`, env: { set: { TG_CANARY: c.envSet } }, stdin: { text: c.stdin } }, { idempotency_key: 'k4' }),
      envelope('shell.exec', { argv: ['test', '-n', c.argv] }, { idempotency_key: 'k5' }),
      envelope('fs.rename', { from: 'dir', to: 'dir2' }),
      envelope('fs.delete', { path: 'dir2' }),
    ];
    for (const env of calls) {
      const r = await rt.call(env);
      assert.equal(r.status, 'succeeded', `${String(env['tool'])}: ${JSON.stringify(r.error)}`);
    }
    const rows = await rt.store.listEffects({});
    assert.equal(rows.length, calls.length, 'every effectful call has its effect record');
    assert.ok(rows.every((r) => /^sha256:/.test(r.args_digest)), 'the record keeps the argument digest');
  } finally {
    await rt.close();
  }
  try {
    // The WAL is checkpointed at close; scan the files as left, and again with a WAL kept.
    assert.deepEqual(whereFound(d.state, Object.values(c)), []);
  } finally {
    d.cleanup();
  }
});

test('the WAL of a running runtime holds no argument values either', async () => {
  const d = tempDirs();
  const secret = canary('walcontent');
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, grant: GRANT });
  try {
    assert.equal((await rt.call(envelope('fs.write', { path: 'w.txt', content: secret }, { idempotency_key: 'w' }))).status, 'succeeded');
    assert.ok(existsSync(join(d.state, 'toolgate.db-wal')));
    assert.deepEqual(whereFound(d.state, [secret]), []);
  } finally {
    await rt.close();
    d.cleanup();
  }
});

test('migrating a database of the old schema wipes the stored arguments from the file and the WAL', async () => {
  const d = tempDirs();
  const secret = canary('migrated');
  try {
    mkdirSync(d.state, { recursive: true });
    const path = join(d.state, 'toolgate.db');
    const old = new Database(path);
    old.pragma('journal_mode = WAL');
    migrate(old, [{ name: 'core', steps: [CORE_MIGRATIONS.steps[0] as string] }]);
    old
      .prepare(
        `INSERT INTO effects (task_id, effect_key, args_digest, tool, tool_version, state, attempt_id, owner, owner_pid, owner_host, deadline, arguments, created_at, updated_at)
         VALUES ('t', 'k:x', 'sha256:00', 'fs.write', '1.0.0', 'completed', 'att_x', 'rt_x', 1, 'h', 0, ?, 'now', 'now')`,
      )
      .run(JSON.stringify({ path: 'a', content: secret }));
    old.close();
    assert.ok(readFileSync(path).includes(secret), 'the old schema kept it');
    const store = new SqliteStore({ dir: d.state });
    try {
      const records = await store.listEffects({});
      assert.equal(records.length, 1, 'the record itself survives');
      assert.equal(records[0]?.intent, null);
      assert.deepEqual(whereFound(d.state, [secret]), []);
    } finally {
      await store.close();
    }
    assert.deepEqual(whereFound(d.state, [secret]), []);
  } finally {
    d.cleanup();
  }
});
