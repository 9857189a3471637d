// A client built on SDK 1.32 (2025-11-25, the elicitation most shipped clients have): its
// elicitation handler answers the question; approve runs the call, decline refuses it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Runtime } from '../../src/runtime/index.js';
import type { HttpServing } from '../../src/server/index.js';
import { tempDirs } from '../support/fixtures.js';
import { answerOf, askingServer } from './support.js';

describe('approvals with an SDK 1.32 client', () => {
  const dirs = tempDirs('tg-approve-sdk1');
  let rt: Runtime;
  let serving: HttpServing;
  let client: Client;
  let reply: 'approve' | 'decline' = 'approve';
  const asked: { message: string; schema: unknown }[] = [];

  before(async () => {
    ({ rt, serving } = await askingServer(dirs));
    client = new Client({ name: 'sdk1-approver', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const p = request.params as { message: string; requestedSchema?: unknown };
      asked.push({ message: p.message, schema: p.requestedSchema });
      return reply === 'approve' ? { action: 'accept', content: { decision: 'approve' } } : { action: 'decline' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(serving.url)));
  });

  after(async () => {
    await client.close().catch(() => {});
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  it('negotiates 2025-11-25, is asked with the form, and its approve runs the call', async () => {
    assert.equal(client.getServerVersion()?.name, 'toolgate');
    const r = answerOf(await client.callTool({ name: 'fs_write', arguments: { path: 'one.txt', content: '1', mode: 'create' } }));
    assert.equal(r.status, 'succeeded', r.text);
    assert.equal(readFileSync(join(dirs.workspace, 'one.txt'), 'utf8'), '1');
    assert.deepEqual(asked[0]?.schema, {
      type: 'object',
      properties: { decision: { type: 'string', title: 'Decision', description: 'approve runs exactly the action shown, once approved, until the approval expires; deny refuses it', enum: ['approve', 'deny'] } },
      required: ['decision'],
    });
  });

  it('its decline answers policy_denied and writes nothing', async () => {
    reply = 'decline';
    const r = answerOf(await client.callTool({ name: 'fs_write', arguments: { path: 'two.txt', content: '2', mode: 'create' } }));
    assert.equal(r.code, 'policy_denied');
    assert.equal(existsSync(join(dirs.workspace, 'two.txt')), false);
  });
});
