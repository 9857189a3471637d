// Two runtime hosts on one PostgreSQL database, each serving MCP: a question one host asked is
// answered on the other (the state's key is the store's shared key), and the state, once used
// there, is refused on the first (the ask row is one row for both).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Runtime } from '../../src/runtime/index.js';
import type { HttpServing } from '../../src/server/index.js';
import { postgresStore } from '../../src/store/index.js';
import { tempDirs } from '../support/fixtures.js';
import { freshDatabase } from '../support/postgres.js';
import { answerOf, askingServer, connect } from './support.js';
import { answer, ask, refusedWith } from './manual-round.js';

describe('approval questions across two hosts on PostgreSQL', () => {
  const dirs = tempDirs('tg-approve-pg');
  const hosts: { rt: Runtime; serving: HttpServing; client: Client }[] = [];
  let drop: () => Promise<void> = async () => {};

  before(async () => {
    const db = await freshDatabase();
    drop = db.drop;
    // One workspace, two state dirs (each host's own), one database.
    for (const name of ['h1', 'h2']) {
      const state = join(dirs.base, name);
      mkdirSync(state);
      const { rt, serving } = await askingServer({ workspace: dirs.workspace, state }, { taskId: 'pg-shared-task' }, postgresStore({ url: db.url, pool: 4, hostName: name }));
      const client = await connect(serving.url, '2026-07-28', async () => ({ action: 'cancel' }), { autoFulfill: false });
      hosts.push({ rt, serving, client });
    }
  });

  after(async () => {
    for (const h of hosts) {
      await h.client.close().catch(() => {});
      await h.serving.close();
      await h.rt.close();
    }
    await drop();
    dirs.cleanup();
  });

  it('asked on one host, answered on the other; a replay on either is refused; nothing runs twice', async () => {
    const [h1, h2] = hosts as [(typeof hosts)[0], (typeof hosts)[0]];
    const args = { path: 'pg.txt', content: 'pg\n', mode: 'create' };
    const q = await ask(h1.client, args);
    const done = answerOf(await answer(h2.client, args, q.requestState));
    assert.equal(done.status, 'succeeded', done.text);
    assert.equal(readFileSync(join(dirs.workspace, 'pg.txt'), 'utf8'), 'pg\n');
    await refusedWith(answer(h1.client, args, q.requestState), 'replayed');
    await refusedWith(answer(h2.client, args, q.requestState), 'replayed');
    assert.equal((await h1.rt.approvals.get(q.approvalId))?.status, 'approved');
  });

  it('a state for one action presented on the other host for another action is refused', async () => {
    const [h1, h2] = hosts as [(typeof hosts)[0], (typeof hosts)[0]];
    const q = await ask(h1.client, { path: 'pa.txt', content: 'A', mode: 'create' });
    await refusedWith(answer(h2.client, { path: 'pb.txt', content: 'B', mode: 'create' }, q.requestState), 'other_request');
    assert.equal(existsSync(join(dirs.workspace, 'pb.txt')) || existsSync(join(dirs.workspace, 'pa.txt')), false);
    assert.equal((await h2.rt.approvals.get(q.approvalId))?.status, 'pending');
  });
});
