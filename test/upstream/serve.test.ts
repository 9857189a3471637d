// The gateway through the built `toolgate serve --stdio`, driven by a real MCP client: the
// configuration file lists the test upstream with its manifest and an environment secret, a
// Cedar policy decides on the normalized repository, and `toolgate reconcile` (the CLI) settles
// an effect the upstream took before dying.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { filesUnder, tempDirs } from '../support/fixtures.js';
import { alive, waitFor } from '../support/processes.js';
import { FIXTURE, MANIFEST } from './support.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const SECRET = 'tok-upstream-7c1f9e0a4b2d';

// Reads of any repository; sends only to acme's repositories; never anything of secret-org.
const POLICY = `
@id("issues.read")
permit (principal, action, resource is Toolgate::Resource) when { context.effect == "read" };
@id("issues.send-acme")
permit (principal, action, resource is Toolgate::Resource)
when { context.effect == "send" && resource.type == "repository" && resource.id like "acme/*" };
@id("issues.forbid-secret-org")
@reason("secret-org repositories are off limits")
forbid (principal, action, resource is Toolgate::Resource) when { resource.id like "secret-org/*" };
`;

describe('the gateway through toolgate serve (MCP, stdio)', () => {
  const d = tempDirs('tg-upstream-serve');
  const config = join(d.base, 'toolgate.config.json');
  const data = join(d.base, 'data');
  const effects = (): unknown[] => readFileSync(join(data, 'effects.jsonl'), 'utf8').trim().split('\n').filter(Boolean);

  before(() => {
    mkdirSync(data);
    writeFileSync(join(d.base, 'grant.json'), JSON.stringify({ tools: ['issues.*'], effects: ['read', 'send'] }));
    writeFileSync(join(d.base, 'issues.cedar'), POLICY);
    writeFileSync(
      config,
      JSON.stringify({
        workspace: 'ws',
        state_dir: 'state',
        grant: 'grant.json',
        policies: ['issues.cedar'],
        upstreams: {
          issues: { command: process.execPath, args: [FIXTURE], data_dir: 'data', env: { ISSUES_TOKEN: { from_env: 'TEST_ISSUES_TOKEN' } }, tools: MANIFEST },
        },
      }),
    );
  });
  after(() => d.cleanup());

  it('lists the manifested tools, Cedar decides on the normalized repository, a crash is ambiguous and `toolgate reconcile` settles it: one effect', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--stdio', '--config', config, '--task', 'serve-upstream'],
      env: { ...(process.env as Record<string, string>), TEST_ISSUES_TOKEN: SECRET },
      stderr: 'inherit',
    });
    const client = new Client({ name: 'upstream-serve-test', version: '1.0.0' });
    await client.connect(transport);
    const pid = transport.pid ?? assert.fail('no pid');
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('issues_'));
      assert.deepEqual(names.sort(), ['issues_create_issue', 'issues_find_issue', 'issues_hang', 'issues_list_issues', 'issues_probe']);

      const read = await client.callTool({ name: 'issues_list_issues', arguments: { repo: 'Acme/App' } });
      assert.notEqual(read.isError, true, JSON.stringify(read));
      // The server got the token through its environment and echoed it; Toolgate redacted it.
      assert.equal(JSON.stringify(read).includes(SECRET), false);
      assert.match(JSON.stringify(read), /auth/);

      const sent = await client.callTool({ name: 'issues_create_issue', arguments: { repo: 'ACME/app', title: 'via mcp' }, _meta: { 'toolgate/idempotency_key': 'mcp-1' } } as never);
      assert.notEqual(sent.isError, true, JSON.stringify(sent));
      assert.equal(effects().length, 1);

      const refused = await client.callTool({ name: 'issues_create_issue', arguments: { repo: 'Secret-Org/vault', title: 'x' } });
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused), /policy_denied/);
      assert.match(JSON.stringify(refused), /secret-org repositories are off limits/);
      assert.equal(effects().length, 1, 'nothing sent for the refused call');

      const crashed = await client.callTool({ name: 'issues_create_issue', arguments: { repo: 'acme/app', title: 'dies', mode: 'crash' }, _meta: { 'toolgate/idempotency_key': 'mcp-2' } } as never);
      assert.equal(crashed.isError, true);
      assert.match(JSON.stringify(crashed), /ambiguous/);
      assert.equal(effects().length, 2);
    } finally {
      await client.close();
    }
    assert.ok(await waitFor(() => !alive(pid), 10_000), 'server exited');

    const rec = await promisify(execFile)(process.execPath, [BIN, 'reconcile', '--config', config, '--json'], { encoding: 'utf8', env: { ...process.env, TEST_ISSUES_TOKEN: SECRET }, timeout: 60_000 });
    assert.match(rec.stdout, /"settled":\s*"completed"/);
    assert.equal(effects().length, 2, 'reconcile sent nothing again: one effect per call');

    for (const f of filesUnder(join(d.base, 'state'))) assert.equal(readFileSync(f).includes(SECRET), false, `${f} holds the secret`);
  });
});
