// The PostgreSQL store from the command line: `--store-url`, TOOLGATE_STORE_URL and `store` in
// toolgate.config.json (flag > environment > configuration), with the built CLI against a fresh
// database of the test cluster. Two state dirs on one database act as two hosts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from '../support/fixtures.js';
import { freshDatabase, withDatabase, testServerUrl } from '../support/postgres.js';
import { storeChoice } from '../../src/cli/store-choice.js';
import { StartupError } from '../../src/protocol/index.js';

const BIN = join(process.cwd(), 'dist/src/cli/main.js');

function toolgate(args: string[], env: Record<string, string> = {}): { code: number | null; stdout: string; stderr: string } {
  const base = { ...process.env };
  delete base['TOOLGATE_STORE_URL'];
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...base, ...env }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const loaded = (store?: { kind: 'sqlite' | 'postgres'; url?: string }) => ({ path: '/cfg/toolgate.config.json', config: store ? { store } : {} });

describe('store choice', () => {
  it('flag over environment over configuration; SQLite when none names a database', () => {
    const env = { TOOLGATE_STORE_URL: 'postgres://env/db' };
    const cfg = loaded({ kind: 'postgres', url: 'postgres://cfg/db' });
    assert.deepEqual(storeChoice('postgres://flag/db', cfg, env), { kind: 'postgres', url: 'postgres://flag/db', from: '--store-url' });
    assert.deepEqual(storeChoice(undefined, cfg, env), { kind: 'postgres', url: 'postgres://env/db', from: 'TOOLGATE_STORE_URL' });
    assert.deepEqual(storeChoice(undefined, cfg, {}), { kind: 'postgres', url: 'postgres://cfg/db', from: 'store.url' });
    assert.deepEqual(storeChoice(undefined, loaded(), {}), { kind: 'sqlite' });
    assert.deepEqual(storeChoice(undefined, loaded({ kind: 'sqlite' }), {}), { kind: 'sqlite' });
  });

  it('kind postgres without a URL, or a URL with kind sqlite, is invalid_config naming /store/url', () => {
    for (const store of [{ kind: 'postgres' as const }, { kind: 'sqlite' as const, url: 'postgres://x/y' }]) {
      assert.throws(
        () => storeChoice(undefined, loaded(store), {}),
        (e: unknown) => e instanceof StartupError && e.code === 'invalid_config' && JSON.stringify(e.data).includes('/store/url'),
      );
    }
    // A URL from the flag or the environment still serves.
    assert.equal(storeChoice(undefined, loaded({ kind: 'postgres' }), { TOOLGATE_STORE_URL: 'postgres://env/db' }).kind, 'postgres');
  });
});

describe('toolgate with a PostgreSQL store', () => {
  it('two calls from two state dirs (two hosts) share one database: a retry replays, audit verify sees both chains, doctor checks the database', async () => {
    const db = await freshDatabase();
    const a = tempDirs('tg-pg-cli-a');
    const b = tempDirs('tg-pg-cli-b');
    try {
      const common = ['--task', 't-shared', '--idempotency-key', 'write-once'];
      const write = ['call', 'fs.write', '--args', JSON.stringify({ path: 'a.txt', content: 'one\n' }), ...common];
      const first = toolgate([...write, '--workspace', a.workspace, '--state-dir', a.state, '--store-url', db.url]);
      assert.equal(first.code, 0, first.stderr + first.stdout);
      const r1 = JSON.parse(first.stdout) as { receipt_id: string; status: string };
      // Host B (its own workspace copy and state dir), same idempotency key: the stored receipt comes back.
      writeFileSync(join(b.workspace, 'a.txt'), 'one\n');
      const retry = toolgate([...write, '--workspace', b.workspace, '--state-dir', b.state], { TOOLGATE_STORE_URL: db.url });
      assert.equal(retry.code, 0, retry.stderr + retry.stdout);
      const r2 = JSON.parse(retry.stdout) as { receipt_id: string; replay: boolean };
      assert.equal(r2.receipt_id, r1.receipt_id);
      assert.equal(r2.replay, true);
      const read = toolgate(['call', 'fs.read', '--args', JSON.stringify({ path: 'a.txt' }), '--task', 't-shared', '--workspace', b.workspace, '--state-dir', b.state, '--store-url', db.url]);
      assert.equal(read.code, 0, read.stderr + read.stdout);

      const verify = toolgate(['audit', 'verify', '--json', '--workspace', a.workspace, '--state-dir', a.state, '--store-url', db.url]);
      assert.equal(verify.code, 0, verify.stderr);
      const { ledger, ...chains } = JSON.parse(verify.stdout) as { ledger: { ok: boolean; receipts: number; checkpoint: { ok: boolean } | null } };
      assert.deepEqual(chains, { ok: true, tasks: 1, receipts: 2, broken: [] });
      // Both hosts' receipts are in the one ledger; this host's checkpoint covers what it saw.
      assert.equal(ledger.ok, true);
      assert.equal(ledger.receipts, 2);
      assert.equal(ledger.checkpoint?.ok, true);
      // Neither state dir holds a SQLite database: the state lives in PostgreSQL.
      const sqliteVerify = toolgate(['audit', 'verify', '--json', '--workspace', a.workspace, '--state-dir', a.state]);
      assert.equal((JSON.parse(sqliteVerify.stdout) as { receipts: number }).receipts, 0);

      const doctor = toolgate(['doctor', '--json', '--workspace', a.workspace, '--state-dir', a.state], { TOOLGATE_STORE_URL: db.url });
      const report = JSON.parse(doctor.stdout) as { checks: { name: string; ok: boolean; detail: string }[] };
      const database = report.checks.find((c) => c.name === 'database');
      assert.equal(database?.ok, true, doctor.stdout);
      assert.match(database?.detail ?? '', /PostgreSQL .*TOOLGATE_STORE_URL.*schema core v1, policy v2/);
      assert.match(report.checks.find((c) => c.name === 'receipt chains')?.detail ?? '', /^2 receipts in 1 tasks verify/);
      assert.equal(report.checks.some((c) => c.name === 'sqlite'), false);
    } finally {
      a.cleanup();
      b.cleanup();
      await db.drop();
    }
  });

  it('the configuration names the store; the flag wins over it; a database that does not exist is state_unavailable (exit 2) with its fix, no password shown', async () => {
    const db = await freshDatabase();
    const d = tempDirs('tg-pg-cli-cfg');
    try {
      const missing = new URL(withDatabase(testServerUrl(), 'tg_missing_database'));
      missing.password = 'hunter2';
      writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ store: { kind: 'postgres', url: missing.toString() } }));
      const call = ['call', 'fs.write', '--args', JSON.stringify({ path: 'b.txt', content: 'x' }), '--workspace', d.workspace, '--state-dir', d.state];
      const refused = toolgate(call);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /state_unavailable: the database .*tg_missing_database.* does not exist; fix: create it/);
      assert.doesNotMatch(refused.stderr, /hunter2/);
      const flagged = toolgate([...call, '--store-url', db.url]);
      assert.equal(flagged.code, 0, flagged.stderr);
      const noUrl = tempDirs('tg-pg-cli-nourl');
      try {
        writeFileSync(join(noUrl.workspace, 'toolgate.config.json'), JSON.stringify({ store: { kind: 'postgres' } }));
        const r = toolgate(['audit', 'verify', '--workspace', noUrl.workspace, '--state-dir', noUrl.state]);
        assert.equal(r.code, 2);
        assert.match(r.stderr, /invalid_config.*\n.*\/store\/url: kind "postgres" needs the database/);
      } finally {
        noUrl.cleanup();
      }
    } finally {
      d.cleanup();
      await db.drop();
    }
  });
});
