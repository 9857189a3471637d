// The 2026-07-28 requestState attacked from a real SDK client in manual mode: the client keeps
// the state and presents it as it likes. Replayed, expired, forged, or presented on a call for
// another action, it is refused with a typed error before anything runs, and the approval it
// named is not decided; counted writes prove nothing crossed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProtocolError, Client } from '@modelcontextprotocol/client';
import type { Runtime } from '../../src/runtime/index.js';
import type { HttpServing } from '../../src/server/index.js';
import { tempDirs } from '../support/fixtures.js';
import { answerOf, askingServer, connect } from './support.js';
import { answer, ask, refusedWith } from './manual-round.js';

describe('2026-07-28 requestState: used once, short-lived, bound to its call', () => {
  const dirs = tempDirs('tg-approve-state');
  let rt: Runtime;
  let serving: HttpServing;
  let c: Client;
  const files = (): string[] => readdirSync(dirs.workspace).sort();

  before(async () => {
    ({ rt, serving } = await askingServer(dirs));
    c = await connect(serving.url, '2026-07-28', async () => ({ action: 'cancel' }), { autoFulfill: false });
  });

  after(async () => {
    await c.close().catch(() => {});
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  it('an answer runs the call once; the same state presented again is refused as replayed', async () => {
    const args = { path: 'once.txt', content: 'one\n', mode: 'create' };
    const q = await ask(c, args);
    const first = answerOf(await answer(c, args, q.requestState));
    assert.equal(first.status, 'succeeded', first.text);
    // Replays at once and after: each refused, the file as the one answer left it.
    await Promise.all([refusedWith(answer(c, args, q.requestState), 'replayed'), refusedWith(answer(c, args, q.requestState), 'replayed')]);
    assert.equal(readFileSync(join(dirs.workspace, 'once.txt'), 'utf8'), 'one\n');
  });

  it('two answers with one state at once: one is used, the other refused', async () => {
    const args = { path: 'race.txt', content: 'r\n', mode: 'create' };
    const q = await ask(c, args);
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => answer(c, args, q.requestState)));
    const used = outcomes.filter((o) => o.status === 'fulfilled');
    assert.equal(used.length, 1, 'exactly one answer used the state');
    for (const o of outcomes) if (o.status === 'rejected') assert.equal((o.reason as ProtocolError).data && (o.reason as { data: { reason: string } }).data.reason, 'request_state_replayed');
  });

  it('a state for action A presented on a call for action B is refused; neither approval is decided, nothing is written', async () => {
    const a = { path: 'a.txt', content: 'A', mode: 'create' };
    const b = { path: 'b.txt', content: 'B', mode: 'create' };
    const qa = await ask(c, a);
    const before = files();
    await refusedWith(answer(c, b, qa.requestState), 'other_request');
    assert.deepEqual(files(), before);
    assert.equal((await rt.approvals.get(qa.approvalId))?.status, 'pending');
    assert.equal((await rt.approvals.list({ status: 'approved' }, Date.now())).some((x) => x.action.resources.some((r) => r.kind === 'path' && r.path === 'b.txt')), false);
    // The refusal did not use the state up: its own call can still answer with it.
    assert.equal(answerOf(await answer(c, a, qa.requestState)).status, 'succeeded');
    assert.equal(existsSync(join(dirs.workspace, 'b.txt')), false);
  });

  it('a forged or altered state is refused as unsigned', async () => {
    const args = { path: 'forged.txt', content: 'F', mode: 'create' };
    const q = await ask(c, args);
    const [prefix, body, mac] = q.requestState.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...payload, exp: Date.now() + 3_600_000 })).toString('base64url');
    await refusedWith(answer(c, args, `${prefix}.${altered}.${mac}`), 'signature');
    await refusedWith(answer(c, args, 'not-a-state'), 'malformed');
    assert.equal(existsSync(join(dirs.workspace, 'forged.txt')), false);
    assert.equal((await rt.approvals.get(q.approvalId))?.status, 'pending');
  });

  it('an expired state is refused; the approval stays pending', async () => {
    // Its own server with short-lived questions: the wait is past the expiry whatever the load.
    const d = tempDirs('tg-approve-expiry');
    const short = await askingServer(d, { approvalQuestionTtlMs: 300 });
    const sc = await connect(short.serving.url, '2026-07-28', async () => ({ action: 'cancel' }), { autoFulfill: false });
    try {
      const args = { path: 'late.txt', content: 'L', mode: 'create' };
      const q = await ask(sc, args);
      await new Promise((r) => setTimeout(r, 700));
      await refusedWith(answer(sc, args, q.requestState), 'expired');
      assert.equal(existsSync(join(d.workspace, 'late.txt')), false);
      assert.equal((await short.rt.approvals.get(q.approvalId))?.status, 'pending');
    } finally {
      await sc.close();
      await short.serving.close();
      await short.rt.close();
      d.cleanup();
    }
  });
});
