// An audit chain that detects loss (docs/audit.md): the ledger's head is signed outside the
// database, so a lost tail, a rewritten receipt (its chain sealed again) and an older copy of the
// database are each reported by `toolgate audit verify`, on SQLite and on PostgreSQL, although
// the per-task hash chains alone still verify. Every attack drops the receipts' triggers first.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import { postgresStore, sqliteStore, type Checkpoint, type StoreFactory } from '../../../src/store/index.js';
import { auditCommand } from '../../../src/cli/audit.js';
import { envelope, tempDirs } from '../../support/fixtures.js';
import { freshDatabase, withDatabase } from '../../support/postgres.js';
import { dropTail, dropTriggers, pgSql, rewriteAndReseal, sqliteSql, type Sql } from './tamper.js';
import pg from 'pg';

// The key lives outside every state dir and workspace of this file; the CLI finds it here too.
const keyDir = mkdtempSync(join(tmpdir(), 'tg-audit-key-'));
process.env['TOOLGATE_AUDIT_KEY'] = join(keyDir, 'audit-key');

interface Target {
  readonly kind: 'sqlite' | 'postgres';
  readonly workspace: string;
  readonly state: string;
  url: string | null;
  store(): StoreFactory;
  sql(): Promise<Sql>;
  cli(): string[];
  done(): Promise<void>;
}

async function target(kind: 'sqlite' | 'postgres'): Promise<Target> {
  const d = tempDirs('tg-audit');
  writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
  const db = kind === 'postgres' ? await freshDatabase() : null;
  const t: Target = {
    kind,
    workspace: d.workspace,
    state: d.state,
    url: db?.url ?? null,
    store: () => (t.url === null ? sqliteStore() : postgresStore({ url: t.url, pool: 2 })),
    sql: async () => (t.url === null ? sqliteSql(join(d.state, 'toolgate.db')) : pgSql(t.url)),
    cli: () => ['--workspace', d.workspace, '--state-dir', d.state, ...(t.url === null ? [] : ['--store-url', t.url])],
    done: async () => {
      await db?.drop();
      d.cleanup();
    },
  };
  return t;
}

async function open(t: Target): Promise<Runtime> {
  return createRuntime({ workspace: t.workspace, stateDir: t.state, store: t.store(), audit: { every: 4 } });
}

/** `n` fs.read calls over two tasks; the checkpoint the last result carried (what a client keeps). */
async function calls(rt: Runtime, n: number): Promise<Checkpoint> {
  for (let i = 0; i < n; i++) {
    const r = await rt.call(envelope('fs.read', { path: 'a.txt' }, { task_id: i % 2 === 0 ? 'task-a' : 'task-b' }));
    assert.equal(r.status, 'succeeded');
  }
  const s = rt.checkpoint();
  assert.ok(s !== null && 'checkpoint' in s && s.checkpoint !== null);
  return s.checkpoint;
}

interface Verdict {
  code: number;
  json: { ok: boolean; broken: unknown[]; ledger?: { ok: boolean; broken: unknown[]; checkpoint: { ok: boolean; pos: number | null; reason: string | null } | null } };
}

async function verify(t: Target, extra: string[] = []): Promise<Verdict> {
  const out: string[] = [];
  const code = await auditCommand.run(['verify', '--json', ...t.cli(), ...extra], { out: (s) => out.push(s), err: () => {} });
  return { code, json: JSON.parse(out.join('\n')) as Verdict['json'] };
}

async function tampered(t: Target, attack: (sql: Sql) => Promise<void>): Promise<void> {
  const sql = await t.sql();
  try {
    await dropTriggers(sql, t.kind);
    await attack(sql);
  } finally {
    await sql.close();
  }
}

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`audit checkpoints on ${kind}`, () => {
    it('an intact store verifies against the checkpoint written at close, which covers every receipt', async () => {
      const t = await target(kind);
      try {
        const rt = await open(t);
        await calls(rt, 5);
        // Every 4 receipts (audit.every) a checkpoint is written and synced while the runtime runs.
        const cpFile = join(t.state, 'audit-checkpoint.json');
        for (const until = Date.now() + 20_000; !existsSync(cpFile) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
        assert.equal((JSON.parse(readFileSync(cpFile, 'utf8')) as Checkpoint).pos, 4, 'written at the 4th receipt, not yet at the 5th');
        const kept = await calls(rt, 1);
        await rt.close();
        const file = JSON.parse(readFileSync(cpFile, 'utf8')) as Checkpoint;
        assert.equal(file.pos, 6);
        assert.equal(file.head, kept.head);
        const v = await verify(t);
        assert.equal(v.code, 0);
        assert.equal(v.json.ledger?.checkpoint?.ok, true);
        assert.equal(v.json.ledger?.checkpoint?.pos, 6);
      } finally {
        await t.done();
      }
    });

    it('deleting the last receipts (heads rolled back) is reported, though every task chain still verifies', async () => {
      const t = await target(kind);
      try {
        const rt = await open(t);
        await calls(rt, 6);
        await rt.close();
        await tampered(t, (sql) => dropTail(sql, 2));
        const v = await verify(t);
        assert.deepEqual(v.json.broken, [], 'the per-task chains alone do not see a clean tail loss');
        assert.equal(v.code, 1);
        assert.equal(v.json.ok, false);
        assert.equal(v.json.ledger?.checkpoint?.ok, false);
        assert.match(v.json.ledger?.checkpoint?.reason ?? '', /covers 6 receipts, the database holds 4: receipts were lost/);
        // A runtime opened on the damaged store does not sign over the loss.
        const again = await open(t);
        try {
          const s = again.checkpoint();
          assert.ok(s !== null && 'diverged' in s, 'the runtime says it no longer signs');
          assert.match(s.diverged, /lacks receipt 6/);
          await again.call(envelope('fs.read', { path: 'a.txt' }));
        } finally {
          await again.close();
        }
        assert.equal((JSON.parse(readFileSync(join(t.state, 'audit-checkpoint.json'), 'utf8')) as Checkpoint).pos, 6, 'the evidence is kept');
        assert.equal((await verify(t)).code, 1);
      } finally {
        await t.done();
      }
    });

    it('rewriting one receipt and sealing its chain again is reported, though the chains and the ledger are self-consistent', async () => {
      const t = await target(kind);
      try {
        const rt = await open(t);
        const kept = await calls(rt, 6);
        await rt.close();
        const clientCopy = join(t.state, '..', 'client-meta.json');
        writeFileSync(clientCopy, JSON.stringify({ _meta: { 'toolgate/checkpoint': kept } }));
        await tampered(t, (sql) => rewriteAndReseal(sql, 3));
        for (const extra of [[], ['--checkpoint', clientCopy]]) {
          const v = await verify(t, extra);
          assert.deepEqual(v.json.broken, [], 'the resealed chains verify');
          assert.deepEqual(v.json.ledger?.broken, [], 'the recomputed ledger columns agree with themselves');
          assert.equal(v.code, 1);
          assert.match(v.json.ledger?.checkpoint?.reason ?? '', /do not make the checkpoint's head: a receipt was rewritten/);
        }
      } finally {
        await t.done();
      }
    });

    it('restoring an older copy of the database is reported', async () => {
      const t = await target(kind);
      const snap = join(t.state, '..', 'toolgate.db.old');
      let oldDb: { drop(): Promise<void> } | null = null;
      try {
        let rt = await open(t);
        await calls(rt, 4);
        await rt.close();
        if (t.url === null) copyFileSync(join(t.state, 'toolgate.db'), snap);
        else {
          // A copy of the database as it was (no session may be connected to the template).
          const name = `tg_old_${process.pid}_${Date.now()}`;
          const admin = new pg.Client({ connectionString: t.url });
          await admin.connect();
          const current = new URL(t.url).pathname.slice(1);
          await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [current]);
          await admin.end();
          const server = new pg.Client({ connectionString: withDatabase(t.url, 'postgres') });
          await server.connect();
          await server.query(`CREATE DATABASE ${name} TEMPLATE ${current}`);
          await server.end();
          const url = withDatabase(t.url, name);
          oldDb = { drop: async () => { const c = new pg.Client({ connectionString: withDatabase(url, 'postgres') }); await c.connect(); await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`); await c.end(); } };
          (t as { older?: string }).older = url;
        }
        rt = await open(t);
        await calls(rt, 4);
        await rt.close();
        assert.equal((await verify(t)).code, 0);
        // The restore (the attacker's copy keeps its triggers: nothing in it was changed).
        if (t.url === null) {
          for (const f of ['toolgate.db-wal', 'toolgate.db-shm']) rmSync(join(t.state, f), { force: true });
          copyFileSync(snap, join(t.state, 'toolgate.db'));
          assert.ok(!existsSync(join(t.state, 'toolgate.db-wal')));
        } else t.url = (t as { older?: string }).older ?? null;
        const v = await verify(t);
        assert.deepEqual(v.json.broken, [], 'the older copy is a consistent database');
        assert.equal(v.code, 1);
        assert.match(v.json.ledger?.checkpoint?.reason ?? '', /covers 8 receipts, the database holds 4/);
      } finally {
        await oldDb?.drop();
        await t.done();
      }
    });

    it('a checkpoint the client kept finds a loss after the last one on file, even when the file is gone', async () => {
      const t = await target(kind);
      try {
        const rt = await createRuntime({ workspace: t.workspace, stateDir: t.state, store: t.store(), audit: { every: 64 } });
        const kept = await calls(rt, 5);
        await rt.close();
        const clientCopy = join(t.state, '..', 'kept.json');
        writeFileSync(clientCopy, JSON.stringify(kept));
        await tampered(t, (sql) => dropTail(sql, 1));
        rmSync(join(t.state, 'audit-checkpoint.json'));
        const alone = await verify(t);
        assert.equal(alone.code, 0, 'without a checkpoint the lost tail is invisible');
        assert.equal(alone.json.ledger?.checkpoint, null);
        const v = await verify(t, ['--checkpoint', clientCopy]);
        assert.equal(v.code, 1);
        assert.match(v.json.ledger?.checkpoint?.reason ?? '', /covers 5 receipts, the database holds 4/);
      } finally {
        await t.done();
      }
    });
  });
}

describe('checkpoint signatures', () => {
  it('a checkpoint altered by one field, or signed by another key, is refused', async () => {
    const t = await target('sqlite');
    try {
      const rt = await open(t);
      const kept = await calls(rt, 2);
      await rt.close();
      const file = join(t.state, '..', 'x.json');
      for (const [forged, reason] of [
        [{ ...kept, pos: kept.pos + 1 }, /signature does not match/],
        [{ ...kept, head: '0'.repeat(64) }, /signature does not match/],
        [{ ...kept, key_id: 'ed25519:0000000000000000' }, /key_id does not name public_key/],
      ] as const) {
        writeFileSync(file, JSON.stringify(forged));
        const v = await verify(t, ['--checkpoint', file]);
        assert.equal(v.code, 1);
        assert.match(v.json.ledger?.checkpoint?.reason ?? '', reason);
      }
      // Another key: a whole valid checkpoint from another runtime's key is not this one's.
      const other = mkdtempSync(join(tmpdir(), 'tg-audit-other-'));
      try {
        const rt2 = await createRuntime({ workspace: t.workspace, stateDir: t.state, audit: { keyFile: join(other, 'k'), checkpointFile: join(other, 'cp.json') } });
        await rt2.call(envelope('fs.read', { path: 'a.txt' }));
        const s = rt2.checkpoint();
        await rt2.close();
        assert.ok(s !== null && 'checkpoint' in s);
        writeFileSync(file, JSON.stringify(s.checkpoint));
        const v = await verify(t, ['--checkpoint', file]);
        assert.equal(v.code, 1);
        assert.match(v.json.ledger?.checkpoint?.reason ?? '', /not by this runtime's audit key/);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    } finally {
      await t.done();
    }
  });
});

after(() => rmSync(keyDir, { recursive: true, force: true }));
