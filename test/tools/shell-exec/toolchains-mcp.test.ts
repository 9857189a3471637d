// Toolchains through the built `toolgate serve --stdio` and a real MCP client: a toolchain named
// in toolgate.config.json runs, read-only, and the model reads its output in the text content;
// a configuration that would expose a credential store stops the server at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../../support/fixtures.js';
import { HOST_PYTHON } from '../../sandbox/fake-home.js';

const BIN = join(import.meta.dirname, '../../../dist/src/cli/main.js');

test('stdio: a toolchain from toolgate.config.json runs in shell_exec and is read-only; the text content shows it', { skip: !existsSync(HOST_PYTHON) && `no ${HOST_PYTHON}` }, async () => {
  const d = tempDirs('tg-toolchain-mcp');
  try {
    // Under /tmp, which the sandbox replaces by a private tmpfs: only the toolchain's bind shows it.
    const bin = join(d.base, 'tools', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'tgpython'), `#!/bin/sh\nexec ${HOST_PYTHON} "$@"\n`);
    chmodSync(join(bin, 'tgpython'), 0o755);
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ sandbox: { toolchains: [join(d.base, 'tools')] } }));
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'toolchain'], stderr: 'inherit' });
    const client = new Client({ name: 'toolchain-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({
        name: 'shell_exec',
        arguments: { shell: 'bash', script: `tgpython -c 'print("toolchain python says", 6*7)'; touch ${bin}/x 2>/dev/null || echo "toolchain is read-only"` },
      });
      const text = (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
      assert.equal(r.isError ?? false, false, text);
      assert.match(text, /toolchain python says 42/);
      assert.match(text, /toolchain is read-only/);
      assert.ok(!existsSync(join(bin, 'x')));
    } finally {
      await client.close();
    }
  } finally {
    d.cleanup();
  }
});

test('toolgate serve refuses a configuration whose sandbox.toolchains would expose a credential store: one typed error, exit 1', () => {
  const d = tempDirs('tg-toolchain-cfg');
  try {
    writeFileSync(join(d.workspace, 'toolgate.config.json'), JSON.stringify({ sandbox: { toolchains: ['~/.ssh'] } }));
    const out = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state], { encoding: 'utf8', input: '', timeout: 60_000 });
    assert.equal(out.status, 1, out.stderr);
    const body = JSON.parse(out.stderr) as { error: { code: string; message: string; data: { option: string; reason: string; credential: string } } };
    assert.equal(body.error.code, 'invalid_resource');
    assert.equal(body.error.data.option, 'sandbox.toolchains');
    assert.equal(body.error.data.reason, 'exposes_credentials');
    assert.match(body.error.data.credential, /\/\.ssh$/);
    assert.match(body.error.message, /sandbox\.toolchains: ~\/\.ssh: would expose the credential store/);
  } finally {
    d.cleanup();
  }
});
