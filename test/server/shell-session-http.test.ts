// shell_session over MCP Streamable HTTP (2025-era sessions): one HTTP session is one task, and
// ending it (DELETE) ends the task's shell sessions with everything they started.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp } from '../../src/server/index.js';
import { builtinTools } from '../../src/tools/index.js';
import { tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';
import { pidsRunning } from '../tools/shell-session/rig.js';

describe('shell_session over MCP HTTP', () => {
  const dirs = tempDirs('tg-session-http');
  let rt: Runtime;
  let server: Awaited<ReturnType<typeof serveMcpHttp>>;

  before(async () => {
    mkdirSync(join(dirs.workspace, 'sub'));
    rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, tools: builtinTools() });
    server = await serveMcpHttp(rt, { port: 0 });
  });

  after(async () => {
    await server.close();
    await rt.close();
    dirs.cleanup();
  });

  it('keeps cwd and env between calls of one HTTP session, and ends its shells when the session is deleted', async () => {
    const client = new Client({ name: 'toolgate-session-http', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    const text = async (args: Record<string, unknown>): Promise<string> => {
      const r = (await client.callTool({ name: 'shell_session', arguments: args })) as { content: { text?: string }[] };
      return r.content.map((c) => c.text ?? '').join('\n');
    };
    assert.match(await text({ command: 'cd sub && export FOO=bar; sleep 7751 &' }), /^env: added FOO=bar$/m);
    const second = await text({ command: 'echo "$FOO in $(basename $PWD)"' });
    assert.match(second, /^bar in sub$/m);
    assert.match(second, /^cwd: sub$/m);
    assert.equal(pidsRunning('sleep', '7751').length, 1);
    await transport.terminateSession();
    await client.close();
    assert.ok(await waitFor(() => pidsRunning('sleep', '7751').length === 0, 15_000), "the session's background job is gone");
  });
});
