// The out-of-band path from the CLI (`toolgate approve ID`, a real child process on the state the
// MCP server uses): an approval decides once, lapses, and covers only the action it binds.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../src/server/index.js';
import { tempDirs } from '../support/fixtures.js';
import { answerOf, ASKING_GRANT, cli, connect, ERAS } from './support.js';

describe('toolgate approve ID for a client that cannot elicit', () => {
  const dirs = tempDirs('tg-approve-cli');
  let rt: Runtime;
  let serving: HttpServing;
  const clients: Client[] = [];

  before(async () => {
    rt = await createRuntime({
      workspace: dirs.workspace,
      stateDir: dirs.state,
      grant: { ...ASKING_GRANT, tools: [...ASKING_GRANT.tools], effects: [...ASKING_GRANT.effects], read: [...ASKING_GRANT.read], write: [...ASKING_GRANT.write], approval_required: [...ASKING_GRANT.approval_required] },
    });
    serving = await serveMcpHttp(rt, { port: 0, taskId: 'cli-modern-task' });
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  for (const era of ERAS) {
    it(`${era}: an approval of action A does not let action B run; B gets its own approval`, async () => {
      const c = await connect(serving.url, era, null);
      clients.push(c);
      const a = { name: 'fs_write', arguments: { path: `${era}-a.txt`, content: 'A', mode: 'create' } };
      const b = { name: 'fs_write', arguments: { path: `${era}-b.txt`, content: 'B', mode: 'create' } };
      const askedA = answerOf(await c.callTool(a));
      assert.equal(askedA.code, 'approval_required');
      assert.equal((await cli(['approve', askedA.approvalId ?? '', '--state-dir', dirs.state], dirs.workspace)).code, 0);
      const askedB = answerOf(await c.callTool(b));
      assert.equal(askedB.code, 'approval_required', 'B is not covered by A');
      assert.notEqual(askedB.approvalId, askedA.approvalId);
      assert.equal(existsSync(join(dirs.workspace, `${era}-b.txt`)), false);
      assert.equal(answerOf(await c.callTool(a)).status, 'succeeded');
      assert.equal(readFileSync(join(dirs.workspace, `${era}-a.txt`), 'utf8'), 'A');
    });
  }

  it('a lapsed request cannot be approved; the call asks again with a new approval', async () => {
    // Its own runtime with short-lived approvals: the wait is past the expiry whatever the load.
    const d = tempDirs('tg-approve-lapse');
    const short = await createRuntime({ workspace: d.workspace, stateDir: d.state, approvalTtlMs: 500, grant: { tools: ['*'], effects: ['read', 'write'], read: ['**'], write: ['**'], approval_required: ['write'] } });
    const s2 = await serveMcpHttp(short, { port: 0 });
    const c = await connect(s2.url, 'legacy', null);
    try {
      const call = { name: 'fs_write', arguments: { path: 'lapsed.txt', content: 'L', mode: 'create' } };
      const asked = answerOf(await c.callTool(call));
      assert.equal(asked.code, 'approval_required');
      await new Promise((r) => setTimeout(r, 800));
      const late = await cli(['approve', asked.approvalId ?? '', '--state-dir', d.state], d.workspace);
      assert.equal(late.code, 1);
      assert.match(late.err + late.out, /has expired/);
      const again = answerOf(await c.callTool(call));
      assert.equal(again.code, 'approval_required');
      assert.notEqual(again.approvalId, asked.approvalId);
      assert.equal(existsSync(join(d.workspace, 'lapsed.txt')), false);
    } finally {
      await c.close();
      await s2.close();
      await short.close();
      d.cleanup();
    }
  });
});
