// What the PostgreSQL store promises beyond the conformance suite: the database itself refuses
// to change receipts, group commit shares a transaction, hosts opening a fresh database at once
// migrate it once, and a lost or missing database is the typed `store_unavailable`, never an
// unhandled rejection, with the store working again once the database is back.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { ToolgateError } from '../../src/protocol/index.js';
import { ABANDON_GRACE_MS, postgresStore, probePostgres } from '../../src/store/index.js';
import { Database } from '../../src/store/postgres/database.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { freshDatabase, testServerUrl, withDatabase } from '../support/postgres.js';
import { direct } from './postgres-backend.js';
import { bodyOf, claimOf, freshTask } from './conformance/fixtures.js';

const STATE = tmpdir();

async function withDatabase_(run: (url: string) => Promise<void>): Promise<void> {
  const db = await freshDatabase();
  try {
    await run(db.url);
  } finally {
    await db.drop();
  }
}

function assertUnavailable(e: unknown): true {
  assert.ok(ToolgateError.isInstance(e), `a ToolgateError, got ${String(e)}`);
  assert.equal(e.code, 'store_unavailable');
  return true;
}

/** Ends every server session of the store (by its application name), as a server restart or a network cut would. */
async function cutConnections(url: string, app: string): Promise<number> {
  return direct(url, async (c) => (await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [app])).rowCount ?? 0);
}

describe('postgres store', () => {
  it('the receipts trigger refuses UPDATE, DELETE and TRUNCATE, even to the table owner', async () => {
    await withDatabase_(async (url) => {
      const store = await PostgresStore.open({ url, stateDir: STATE });
      try {
        const r = await store.commit({ body: bodyOf(freshTask()) });
        await direct(url, async (c) => {
          for (const sql of [`UPDATE receipts SET status = 'failed' WHERE receipt_id = $1`, `DELETE FROM receipts WHERE receipt_id = $1`]) {
            await assert.rejects(c.query(sql, [r.receipt_id]), (e: unknown) => e instanceof pg.DatabaseError && e.code === '23001' && /immutable/.test(e.message), sql);
          }
          await assert.rejects(c.query('TRUNCATE receipts'), (e: unknown) => e instanceof pg.DatabaseError && e.code === '23001');
        });
        assert.deepEqual(await store.getReceipt(r.receipt_id), r);
        assert.deepEqual((await store.verifyChain()).ok, true);
      } finally {
        await store.close();
      }
    });
  });

  it('every session commits synchronously, even on a database whose default is not to', async () => {
    await withDatabase_(async (url) => {
      const name = new URL(url).pathname.slice(1);
      await direct(url, (c) => c.query(`ALTER DATABASE ${name} SET synchronous_commit = off`));
      assert.equal(await direct(url, async (c) => (await c.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit), 'off');
      const db = new Database({ url, pool: 1, stateDir: STATE });
      try {
        assert.equal((await db.read<{ synchronous_commit: string }>('check', 'SHOW synchronous_commit')).rows[0]?.synchronous_commit, 'on');
      } finally {
        await db.close();
      }
    });
  });

  it('commits asked for in one turn share one transaction, chained in the order asked; lone commits are their own', async () => {
    await withDatabase_(async (url) => {
      const store = await PostgresStore.open({ url, stateDir: STATE });
      const task = freshTask();
      try {
        for (let i = 0; i < 3; i++) await store.commit({ body: bodyOf(task) });
        assert.deepEqual(store.commitStats(), { receipts: 3, batches: 3 });
        const turn = await Promise.all(Array.from({ length: 16 }, () => store.commit({ body: bodyOf(task) })));
        assert.deepEqual(store.commitStats(), { receipts: 19, batches: 4 });
        assert.equal(turn[0]?.prev_receipt_digest !== null, true);
        for (let i = 1; i < turn.length; i++) assert.equal(turn[i]?.prev_receipt_digest, turn[i - 1]?.digest, 'chained in the order asked');
        assert.deepEqual(await store.verifyChain(task), { ok: true, tasks: 1, receipts: 19, broken: [] });
      } finally {
        await store.close();
      }
    });
  });

  it('a bad request in a batch fails alone: the other commits of the turn are stored', async () => {
    await withDatabase_(async (url) => {
      const store = await PostgresStore.open({ url, stateDir: STATE });
      const task = freshTask();
      try {
        // A NUL byte cannot be stored in a PostgreSQL text column: the server refuses this one receipt.
        const results = await Promise.allSettled([store.commit({ body: bodyOf(task) }), store.commit({ body: bodyOf(task, { tool: 'bad\u0000tool' }) }), store.commit({ body: bodyOf(task) })]);
        assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
        assert.deepEqual(await store.verifyChain(task), { ok: true, tasks: 1, receipts: 2, broken: [] });
      } finally {
        await store.close();
      }
    });
  });

  it('four hosts opening a fresh database at once migrate it once; a newer schema is refused', async () => {
    await withDatabase_(async (url) => {
      const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open({ url, stateDir: STATE })));
      await Promise.all(stores.map((s) => s.close()));
      const health = await probePostgres(url, STATE);
      assert.deepEqual(health.schema, { core: 1, policy: 2, keys: 1, subtasks: 1, task_runtimes: 1, ledger: 1 });
      assert.deepEqual(health.schema, health.expected, 'doctor expects every set the store migrates');
      assert.match(health.server_version, /^\d+/);
      await direct(url, (c) => c.query(`UPDATE schema_migrations SET version = 99 WHERE name = 'core'`));
      await assert.rejects(PostgresStore.open({ url, stateDir: STATE }), /newer than this Toolgate/);
    });
  });

  it('a sent record of another host is in progress until its deadline plus the grace, then handed over for reconcile', async () => {
    await withDatabase_(async (url) => {
      const store = await PostgresStore.open({ url, stateDir: STATE });
      const task = freshTask();
      try {
        await store.claim(claimOf(task, 'k'));
        await store.markSent(task, 'k', { path: 'x' });
        await store.letGo(task, 'k');
        // As if host B had claimed it (its processes cannot be seen from here).
        const other = (deadline: number) =>
          direct(url, (c) => c.query(`UPDATE effects SET owner = 'rt_host_b', owner_host = 'host-b.invalid', owner_pid = 1, deadline = $1 WHERE task_id = $2`, [deadline, task]));
        await other(Date.now() + 60_000);
        assert.equal((await store.claim(claimOf(task, 'k'))).kind, 'in_progress');
        await other(Date.now() - 1_000); // past its deadline, but not past the grace
        assert.equal((await store.claim(claimOf(task, 'k'))).kind, 'in_progress');
        await other(Date.now() - ABANDON_GRACE_MS - 1_000);
        const r = await store.claim(claimOf(task, 'k'));
        assert.equal(r.kind, 'reconcile');
        assert.equal((await store.findEffect(task, 'k'))?.owner, store.owner.id, 'adopted by this host');
      } finally {
        await store.close();
      }
    });
  });

  it('hostName: a record of a host of another name is judged by its deadline, of this name by its pid', async () => {
    await withDatabase_(async (url) => {
      const a = await PostgresStore.open({ url, stateDir: STATE, hostName: 'host-a' });
      const b = await PostgresStore.open({ url, stateDir: STATE, hostName: 'host-b' });
      const a2 = await PostgresStore.open({ url, stateDir: STATE, hostName: 'host-a' });
      const task = freshTask();
      try {
        // Held by a running call of host A, but its deadline and the grace have passed.
        const req = claimOf(task, 'k', { deadline: Date.now() - ABANDON_GRACE_MS - 1_000 });
        assert.deepEqual(await a.claim(req), { kind: 'new' });
        await a.markSent(task, 'k', null);
        assert.equal((await a2.claim(req)).kind, 'in_progress', 'same host name: its pid runs here');
        const r = await b.claim(req);
        assert.equal(r.kind, 'reconcile', 'another host cannot see the pid: the deadline decides');
        assert.equal(r.kind === 'reconcile' && r.record.owner_host, 'host-b');
      } finally {
        await Promise.all([a.close(), b.close(), a2.close()]);
      }
    });
  });

  it('a database that cannot be reached is store_unavailable at open, with the server\'s code', async () => {
    await assert.rejects(postgresStore({ url: withDatabase(testServerUrl(), 'tg_does_not_exist') })({ stateDir: STATE }), (e: unknown) => {
      assertUnavailable(e);
      assert.equal(ToolgateError.isInstance(e) && e.data['cause_code'], '3D000');
      return true;
    });
    const nowhere = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(`${tmpdir()}/no-such-socket-dir`)}`;
    await assert.rejects(postgresStore({ url: nowhere })({ stateDir: STATE }), assertUnavailable);
  });

  it('a connection lost in the middle of a claim fails it typed; the next call gets a new connection', async () => {
    await withDatabase_(async (url) => {
      const app = `tg-cut-${process.pid}-${Date.now()}`;
      const store = await PostgresStore.open({ url, stateDir: STATE, applicationName: app });
      const task = freshTask();
      const blocker = new pg.Client({ connectionString: url });
      await blocker.connect();
      try {
        assert.deepEqual(await store.claim(claimOf(task, 'seed')), { kind: 'new' });
        // Hold the record's row so the claim below waits inside its transaction, then cut it.
        await blocker.query('BEGIN');
        await blocker.query(`SELECT 1 FROM effects WHERE task_id = $1 AND effect_key = 'seed' FOR UPDATE`, [task]);
        await store.letGo(task, 'seed');
        // Its outcome is taken at once (a rejection nobody awaits yet would count as unhandled).
        const waiting = store.claim(claimOf(task, 'seed')).then(
          () => null,
          (e: unknown) => e,
        );
        let cut = 0;
        for (let i = 0; i < 200 && cut === 0; i++) {
          const waits = await direct(url, async (c) => (await c.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [app])).rowCount ?? 0);
          if (waits > 0) cut = await cutConnections(url, app);
          else await new Promise((r) => setTimeout(r, 50));
        }
        assert.ok(cut > 0, 'the claim was seen waiting on the row lock');
        assertUnavailable(await waiting);
        await blocker.query('ROLLBACK');
        // The claim did not commit: the record is still this owner's, let go, so it is reclaimed.
        assert.deepEqual(await store.claim(claimOf(task, 'seed')), { kind: 'new' });
        // Connections the pool kept idle were cut too: the commit still goes through on a fresh one.
        await cutConnections(url, app);
        const r = await store.commit({ body: bodyOf(task), effect: { key: 'seed', state: 'completed' } });
        assert.equal((await store.findEffect(task, 'seed'))?.receipt_id, r.receipt_id);
      } finally {
        await blocker.end();
        await store.close();
      }
    });
  });

  it('a commit whose database went away is store_unavailable, never an unhandled rejection', async () => {
    const db = await freshDatabase();
    const app = `tg-gone-${process.pid}-${Date.now()}`;
    const store = await PostgresStore.open({ url: db.url, stateDir: STATE, applicationName: app });
    try {
      await store.commit({ body: bodyOf(freshTask()) });
      await db.drop(); // WITH (FORCE): ends the store's sessions, and the database is gone
      await assert.rejects(store.commit({ body: bodyOf(freshTask()) }), assertUnavailable);
      await assert.rejects(store.claim(claimOf(freshTask(), 'k')), assertUnavailable);
      await assert.rejects(store.verifyChain(), assertUnavailable);
    } finally {
      await store.close();
    }
  });
  it('a database that stops allowing connections is store_unavailable for every kind of call, whatever SQLSTATE the refusal carries', async () => {
    await withDatabase_(async (url) => {
      const app = `tg-closed-${process.pid}-${Date.now()}`;
      const store = await PostgresStore.open({ url, stateDir: STATE, applicationName: app });
      const name = new URL(url).pathname.slice(1);
      try {
        await store.commit({ body: bodyOf(freshTask()) });
        // 55000 (object_not_in_prerequisite_state) at connect: not one of the unavailable classes.
        await direct(testServerUrl(), (c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`));
        assert.ok((await cutConnections(testServerUrl(), app)) >= 1, 'the store had a session to end');
        await assert.rejects(store.getReceipt('rcpt_absent' as never), assertUnavailable); // a read
        await assert.rejects(store.commit({ body: bodyOf(freshTask()) }), assertUnavailable); // a transaction
        await assert.rejects(store.claim(claimOf(freshTask(), 'k')), assertUnavailable);
      } finally {
        await direct(testServerUrl(), (c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
        await store.close();
      }
    });
  });
});
