// git.push through the built `toolgate serve --stdio` over MCP: toolgate.config.json names the
// remote (`origin`, http on 127.0.0.3) and the environment variable of its credential; the
// server takes the push and cuts the connection before answering; the call is ambiguous, and
// `toolgate reconcile` (the CLI, pinned, with the credential) settles it: one push in all.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { filesUnder, tempDirs } from '../../support/fixtures.js';
import { alive, waitFor } from '../../support/processes.js';
import { GitHttpServer } from './http-server.js';
import { HTTP_ADDRESS, POLICY, TOKEN, TOKEN_ENV, grant, initWorkspace } from './harness.js';

const BIN = join(import.meta.dirname, '../../../dist/src/cli/main.js');

describe('git.push through toolgate serve (MCP, stdio)', () => {
  let web: GitHttpServer;
  const d = tempDirs('tg-git-serve');
  const config = join(d.base, 'toolgate.config.json');
  let head = '';

  before(async () => {
    web = await GitHttpServer.start(HTTP_ADDRESS);
    web.createRepository('app');
    head = initWorkspace(d.workspace).c3;
    writeFileSync(join(d.base, 'grant.json'), JSON.stringify(grant()));
    writeFileSync(join(d.base, 'git.cedar'), POLICY);
    const remotes = [{ name: 'origin', url: `http://${HTTP_ADDRESS}:${web.port}/app.git`, auth: { env: TOKEN_ENV, prefix: 'Bearer ' } }];
    writeFileSync(config, JSON.stringify({ workspace: 'ws', state_dir: 'state', grant: 'grant.json', policies: ['git.cedar'], connectors: { git: { remotes } } }));
  });
  after(async () => {
    await web.close();
    d.cleanup();
  });

  it('a push whose answer is lost is ambiguous; `toolgate reconcile` finds our commit: one push; the credential nowhere in the state dir', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--stdio', '--config', config, '--task', 'serve-git'],
      env: { ...(process.env as Record<string, string>), [TOKEN_ENV]: TOKEN },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'git-serve-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid ?? assert.fail('no pid');
    try {
      const listed = await client.listTools();
      assert.ok(listed.tools.some((t) => t.name === 'git_push'));
      assert.ok(listed.tools.some((t) => t.name === 'git_fetch'));
      web.dropPushAnswer = true;
      const call = { name: 'git_push', arguments: { remote: 'origin', ref: 'main' }, _meta: { 'toolgate/idempotency_key': 'mcp-push-1' } };
      const lost = await client.callTool(call as never);
      assert.equal(lost.isError, true);
      assert.match(JSON.stringify(lost), /ambiguous/);
      // No retry here: the operator's `toolgate reconcile` settles it (a retry that reconciles by
      // itself is push.test.ts's case).
    } finally {
      web.dropPushAnswer = false;
      await client.close();
    }
    assert.ok(await waitFor(() => !alive(pid), 10_000), 'server exited');
    assert.equal(web.refOf('app', 'refs/heads/main'), head, 'the backend took the push');
    // curl itself sends a POST again when a reused connection answered nothing at all: the same
    // pack twice on the wire. The lease (`old` → ours) makes the second a no-op: one move.
    const posts = web.pushes;
    assert.ok(posts >= 1 && posts <= 2, `${posts} receive-pack POSTs`);
    assert.equal(web.refMoves('app', 'refs/heads/main'), 1, 'the ref moved once');

    const rec = await promisify(execFile)(process.execPath, [BIN, 'reconcile', '--config', config, '--json'], { encoding: 'utf8', env: { ...process.env, [TOKEN_ENV]: TOKEN }, timeout: 60_000 });
    assert.match(rec.stdout, /"settled":\s*"completed"/);
    assert.equal(web.pushes, posts, 'reconcile pushed nothing');
    assert.equal(web.refMoves('app', 'refs/heads/main'), 1, 'one effect in all');
    for (const r of web.requests) assert.equal(r.authorization, `Bearer ${TOKEN}`, 'every request, reconcile too, carried the configured credential');
    for (const f of filesUnder(join(d.base, 'state'))) assert.equal(readFileSync(f).includes(TOKEN), false, `${f} holds the credential`);
  });
});
