// Each tools/call result hands the client the ledger's latest signed checkpoint in
// `_meta["toolgate/checkpoint"]` (docs/audit.md), through the built `toolgate serve --stdio` and
// a real SDK client: it covers the call's own receipt, is signed by the runtime's audit key, and
// is what `audit verify --checkpoint` takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { checkpointFault, loadAuditKey, type Checkpoint } from '../../src/store/index.js';
import { auditCommand } from '../../src/cli/audit.js';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

test('every result carries a signed checkpoint that covers its receipt, and audit verify takes it', async () => {
  const d = tempDirs('tg-cp-meta');
  const keyDir = mkdtempSync(join(tmpdir(), 'tg-cp-key-'));
  const keyFile = join(keyDir, 'audit-key');
  writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
  const client = new Client({ name: 'checkpoint-test', version: '1.0.0' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state],
        env: { ...(process.env as Record<string, string>), TOOLGATE_AUDIT_KEY: keyFile },
        stderr: 'inherit',
      }),
    );
    const seen: Checkpoint[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } });
      seen.push(r._meta?.['toolgate/checkpoint'] as Checkpoint);
    }
    const missing = await client.callTool({ name: 'fs_read', arguments: { path: 'nope.txt' } });
    assert.equal(missing.isError, true);
    seen.push(missing._meta?.['toolgate/checkpoint'] as Checkpoint);
    await client.close();
    const key = loadAuditKey(keyFile, []);
    assert.deepEqual(seen.map((c) => c.pos), [1, 2, 3, 4], 'each covers the receipts up to its own');
    for (const c of seen) assert.equal(checkpointFault(c, key.keyId), null);
    const kept = join(d.base, 'kept.json');
    writeFileSync(kept, JSON.stringify({ 'toolgate/checkpoint': seen[3] }));
    process.env['TOOLGATE_AUDIT_KEY'] = keyFile;
    const out: string[] = [];
    const code = await auditCommand.run(['verify', '--workspace', d.workspace, '--state-dir', d.state, '--checkpoint', kept], { out: (s) => out.push(s), err: () => {} });
    assert.equal(code, 0, out.join('\n'));
    assert.match(out.join('\n'), /ok: checkpoint .*kept\.json \(4 receipts/);
  } finally {
    await client.close().catch(() => {});
    delete process.env['TOOLGATE_AUDIT_KEY'];
    d.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  }
});

test('a compatibility profile’s results carry the checkpoint too', async () => {
  const d = tempDirs('tg-cp-profile');
  const keyDir = mkdtempSync(join(tmpdir(), 'tg-cp-key-'));
  const keyFile = join(keyDir, 'audit-key');
  writeFileSync(join(d.workspace, 'a.txt'), 'hello\n');
  const client = new Client({ name: 'checkpoint-profile-test', version: '1.0.0' });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--stdio', '--profile', 'claude-code', '--workspace', d.workspace, '--state-dir', d.state],
        env: { ...(process.env as Record<string, string>), TOOLGATE_AUDIT_KEY: keyFile },
        stderr: 'inherit',
      }),
    );
    const r = await client.callTool({ name: 'Read', arguments: { file_path: join(realpathSync(d.workspace), 'a.txt') } });
    assert.notEqual(r.isError, true);
    const cp = r._meta?.['toolgate/checkpoint'] as Checkpoint;
    assert.equal(cp.pos, 1);
    assert.equal(checkpointFault(cp, loadAuditKey(keyFile, []).keyId), null);
  } finally {
    await client.close().catch(() => {});
    d.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  }
});
