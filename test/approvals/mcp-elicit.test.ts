// Approvals asked through a real MCP client (SDK 2.4 over Streamable HTTP): form elicitation on
// 2025-11-25 connections, input_required + requestState on 2026-07-28. The person's answer
// decides the approval; decline, cancel, a timeout and a client that cannot elicit leave nothing
// written, and the last gets the out-of-band path (toolgate approve ID, then the same call).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import type { Runtime } from '../../src/runtime/index.js';
import type { HttpServing } from '../../src/server/index.js';
import { tempDirs } from '../support/fixtures.js';
import { answerOf, askingServer, cli, connect, ERAS, type Elicit, type Era } from './support.js';

describe('approvals through the MCP client, both protocol eras', () => {
  const dirs = tempDirs('tg-approve-mcp');
  let rt: Runtime;
  let serving: HttpServing;
  const clients: Client[] = [];
  let n = 0;

  before(async () => {
    mkdirSync(join(dirs.workspace, 'sub'));
    ({ rt, serving } = await askingServer(dirs));
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  async function client(era: Era, elicit: Elicit | null): Promise<Client> {
    const c = await connect(serving.url, era, elicit);
    clients.push(c);
    return c;
  }

  /** A fresh file name per call, so that each call is its own action and approval. */
  const fresh = (): string => `f${++n}.txt`;

  for (const era of ERAS) {
    describe(era, () => {
      it('approve: the person sees the normalized action, not the raw arguments; the call then runs once', async () => {
        const seen: string[] = [];
        const c = await client(era, async (params) => {
          seen.push(params.message);
          assert.equal((params as { mode?: string }).mode ?? 'form', 'form');
          return { action: 'accept', content: { decision: 'approve' } };
        });
        const name = fresh();
        // The raw path walks through sub/.. : what would be written is `name` at the root.
        const r = answerOf(await c.callTool({ name: 'fs_write', arguments: { path: `./sub/../${name}`, content: 'approved\n', mode: 'create' } }));
        assert.equal(r.isError, false, r.text);
        assert.equal(r.status, 'succeeded');
        assert.equal(readFileSync(join(dirs.workspace, name), 'utf8'), 'approved\n');
        assert.equal(seen.length, 1, 'asked once');
        assert.match(seen[0] ?? '', new RegExp(`create path ${name.replace('.', '\\.')}\\b`));
        assert.doesNotMatch(seen[0] ?? '', /sub\/\.\./, 'the raw argument is not what is shown');
        assert.match(seen[0] ?? '', /fs\.write 1\.0\.0 \(effect: write\)/);
        const [approval] = (await rt.approvals.list({ status: 'approved' }, Date.now())).filter((a) => seen[0]?.includes(a.id));
        assert.equal(approval?.decided_by, 'mcp:approver-test');
      });

      it('decline: the approval is denied and the call answers policy_denied; nothing is written', async () => {
        const c = await client(era, async () => ({ action: 'decline' }));
        const name = fresh();
        const r = answerOf(await c.callTool({ name: 'fs_write', arguments: { path: name, content: 'x', mode: 'create' } }));
        assert.equal(r.code, 'policy_denied');
        assert.equal(existsSync(join(dirs.workspace, name)), false);
      });

      it('an accept that says deny denies; an accept without a decision decides nothing (approval_required, pending)', async () => {
        const denying = await client(era, async () => ({ action: 'accept', content: { decision: 'deny' } }));
        const a = fresh();
        assert.equal(answerOf(await denying.callTool({ name: 'fs_write', arguments: { path: a, content: 'x', mode: 'create' } })).code, 'policy_denied');
        const empty = await client(era, async () => ({ action: 'accept', content: {} }));
        const b = fresh();
        const r = answerOf(await empty.callTool({ name: 'fs_write', arguments: { path: b, content: 'x', mode: 'create' } }));
        assert.equal(r.code, 'approval_required');
        assert.equal((await rt.approvals.get(r.approvalId ?? ''))?.status, 'pending');
        assert.equal(existsSync(join(dirs.workspace, a)) || existsSync(join(dirs.workspace, b)), false);
      });

      it('cancel: the call answers approval_required and the approval stays pending', async () => {
        const c = await client(era, async () => ({ action: 'cancel' }));
        const name = fresh();
        const r = answerOf(await c.callTool({ name: 'fs_write', arguments: { path: name, content: 'x', mode: 'create' } }));
        assert.equal(r.code, 'approval_required');
        assert.equal((await rt.approvals.get(r.approvalId ?? ''))?.status, 'pending');
        assert.equal(existsSync(join(dirs.workspace, name)), false);
      });

      it('a client that cannot elicit gets approval_required with the id; toolgate approve ID, then the same call runs', async () => {
        const c = await client(era, null);
        const name = fresh();
        const call = { name: 'fs_write', arguments: { path: name, content: 'out of band\n', mode: 'create' } };
        const first = answerOf(await c.callTool(call));
        assert.equal(first.code, 'approval_required');
        assert.match(first.text, /toolgate approve apr_/);
        assert.equal(existsSync(join(dirs.workspace, name)), false);
        const approved = await cli(['approve', first.approvalId ?? '', '--by', 'alice', '--state-dir', dirs.state], dirs.workspace);
        assert.equal(approved.code, 0, approved.err);
        const again = await cli(['approve', first.approvalId ?? '', '--state-dir', dirs.state], dirs.workspace);
        assert.equal(again.code, 1, 'a second decision is refused');
        const second = answerOf(await c.callTool(call));
        assert.equal(second.status, 'succeeded', second.text);
        assert.equal(readFileSync(join(dirs.workspace, name), 'utf8'), 'out of band\n');
      });
    });
  }

  it('2025-11-25: while the person decides, a client that asked for progress hears from the call, so its own timeout does not end the wait', async () => {
    const d = tempDirs('tg-approve-beat');
    // Progress every 3 s (a quarter of the wait); the client gives up after 5 s without any.
    const { rt: rt2, serving: s2 } = await askingServer(d, { approvalWaitMs: 12_000 });
    const c = await connect(s2.url, 'legacy', () => new Promise((resolve) => setTimeout(() => resolve({ action: 'accept', content: { decision: 'approve' } }), 6_000)));
    try {
      const heard: string[] = [];
      const r = answerOf(
        await c.callTool(
          { name: 'fs_write', arguments: { path: 'slow.txt', content: 's', mode: 'create' } },
          { timeout: 5_000, resetTimeoutOnProgress: true, onprogress: (p) => heard.push(p.message ?? '') },
        ),
      );
      assert.equal(r.status, 'succeeded', r.text);
      assert.ok(heard.length >= 1 && heard.every((m) => /waiting for a person to answer approval apr_/.test(m)), JSON.stringify(heard));
    } finally {
      await c.close();
      await s2.close();
      await rt2.close();
      d.cleanup();
    }
  });

  it('askInClient: false asks no client, whatever it can do: every approval is out of band', async () => {
    const d = tempDirs('tg-approve-off');
    const off = await askingServer(d, { askInClient: false });
    try {
      for (const era of ERAS) {
        let asked = 0;
        const c = await connect(off.serving.url, era, async () => {
          asked++;
          return { action: 'accept', content: { decision: 'approve' } };
        });
        const r = answerOf(await c.callTool({ name: 'fs_write', arguments: { path: `${era}.txt`, content: 'x', mode: 'create' } }));
        await c.close();
        assert.equal(r.code, 'approval_required');
        assert.equal(asked, 0);
        assert.equal(existsSync(join(d.workspace, `${era}.txt`)), false);
      }
    } finally {
      await off.serving.close();
      await off.rt.close();
      d.cleanup();
    }
  });

  it('2025-11-25: a person who never answers leaves the approval pending when the wait ends', async () => {
    const d = tempDirs('tg-approve-wait');
    const { rt: rt2, serving: s2 } = await askingServer(d, { approvalWaitMs: 300 });
    const asked: string[] = [];
    // The handler answers only when the server gives up on it (its request is cancelled).
    const c = await connect(s2.url, 'legacy', (params, signal) => {
      asked.push(params.message);
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('gone')), { once: true }));
    });
    try {
      const r = answerOf(await c.callTool({ name: 'fs_write', arguments: { path: 'late.txt', content: 'x', mode: 'create' } }));
      assert.equal(asked.length, 1);
      assert.equal(r.code, 'approval_required');
      assert.equal((await rt2.approvals.get(r.approvalId ?? ''))?.status, 'pending');
      assert.equal(existsSync(join(d.workspace, 'late.txt')), false);
    } finally {
      await c.close();
      await s2.close();
      await rt2.close();
      d.cleanup();
    }
  });
});
