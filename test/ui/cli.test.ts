// `toolgate ui` as a person starts it: the built CLI over a state dir that a call wrote to,
// the address with the token printed on stderr, the API behind the token, a clean end on SIGTERM.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { uiCommand } from '../../src/cli/ui.js';
import { UsageError } from '../../src/cli/usage.js';
import { tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const io = { out: () => {}, err: () => {} };

describe('toolgate ui', () => {
  it('prints the address with the token, answers the API only with it, and ends cleanly on SIGTERM', async () => {
    const d = tempDirs('tg-ui-cli');
    try {
      writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
      const call = spawnSync(process.execPath, [BIN, 'call', 'fs.read', '--args', '{"path":"a.txt"}', '--task', 'ui-cli', '--workspace', d.workspace, '--state-dir', d.state], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(call.status, 0, call.stderr);
      const tokenFile = join(d.base, 'token');
      writeFileSync(tokenFile, 'a-token-of-at-least-16-chars\n');
      const child = spawn(process.execPath, [BIN, 'ui', '--port', '0', '--token-file', tokenFile, '--workspace', d.workspace, '--state-dir', d.state], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      try {
        assert.ok(await waitFor(() => /web view on (\S+)/.test(stderr), 30_000), stderr);
        const open = /web view on (\S+)/.exec(stderr)?.[1] ?? assert.fail('no address');
        assert.match(open, /^http:\/\/127\.0\.0\.1:\d+\/#token=a-token-of-at-least-16-chars$/);
        const base = open.slice(0, open.indexOf('#'));
        assert.equal((await fetch(`${base}api/overview`)).status, 401);
        const res = await fetch(`${base}api/overview`, { headers: { authorization: 'Bearer a-token-of-at-least-16-chars' } });
        assert.equal(res.status, 200);
        const overview = (await res.json()) as { tasks: { task_id: string }[] };
        assert.deepEqual(overview.tasks.map((t) => t.task_id), ['ui-cli']);
        const audit = (await (await fetch(`${base}api/audit`, { headers: { authorization: 'Bearer a-token-of-at-least-16-chars' } })).json()) as { ok: boolean; receipts: number };
        assert.deepEqual([audit.ok, audit.receipts], [true, 1]);
        assert.equal((await fetch(base)).status, 200, 'the page itself');
      } finally {
        child.kill('SIGTERM');
      }
      assert.equal(await exited, 0, stderr);
    } finally {
      d.cleanup();
    }
  });

  it('refuses a host beyond loopback and a short token', async () => {
    const d = tempDirs('tg-ui-cli');
    try {
      await assert.rejects(uiCommand.run(['--host', '0.0.0.0'], io), UsageError);
      await assert.rejects(uiCommand.run(['--port', '70000'], io), UsageError);
      writeFileSync(join(d.base, 'short'), 'short\n');
      await assert.rejects(uiCommand.run(['--token-file', join(d.base, 'short'), '--workspace', d.workspace, '--state-dir', d.state], io), UsageError);
    } finally {
      d.cleanup();
    }
  });
});
