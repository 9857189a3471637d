// The MCP Inspector CLI (2.12.0) lists the tools and calls fs_read against both transports.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../src/server/index.js';
import { tempDirs } from '../support/fixtures.js';

// Installed by scripts/test-node-versions.mjs (or run-tests on Node >= 22) from its own lock:
// the inspector declares Node >= 22, so it stays out of the main lock whose floor is Node 20.
const INSPECTOR = join(import.meta.dirname, '../../scripts/node-versions/tools/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const STDIO_MAIN = join(import.meta.dirname, '../support/mcp-stdio-main.ts');

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function inspect(home: string, args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    // HOME: the inspector keeps a catalog and secrets under ~/.mcp-inspector.
    const child = spawn(process.execPath, [INSPECTOR, '--cli', '--format', 'json', '--quiet', ...args], {
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function resultOf(run: Run): Record<string, unknown> {
  assert.equal(run.code, 0, `inspector exited ${run.code}: ${run.stderr}${run.stdout}`);
  return (JSON.parse(run.stdout) as { result: Record<string, unknown> }).result;
}

describe('MCP Inspector CLI against toolgate', () => {
  const dirs = tempDirs('tg-inspector');
  const home = join(dirs.base, 'home');
  let rt: Runtime;
  let serving: HttpServing;
  const stdioTarget = (): string[] => [
    '--',
    process.execPath,
    '--import',
    'tsx',
    STDIO_MAIN,
    JSON.stringify({ workspace: dirs.workspace, state: join(dirs.base, 'state-stdio'), ledger: join(dirs.base, 'ledger') }),
  ];

  before(async () => {
    mkdirSync(home);
    writeFileSync(join(dirs.workspace, 'a.txt'), 'alpha\nbeta\n');
    rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state });
    serving = await serveMcpHttp(rt, { port: 0 });
  });

  after(async () => {
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  it('lists the tools over stdio', async () => {
    const result = resultOf(await inspect(home, ['--method', 'tools/list', ...stdioTarget()]));
    const names = (result['tools'] as { name: string }[]).map((t) => t.name);
    assert.ok(names.includes('fs_read'), names.join(','));
  });

  it('calls fs_read over stdio', async () => {
    const result = resultOf(await inspect(home, ['--method', 'tools/call', '--tool-name', 'fs_read', '--tool-args-json', '{"path":"a.txt"}', ...stdioTarget()]));
    assert.equal((result['structuredContent'] as { content: string }).content, 'alpha\nbeta\n');
    assert.equal((result['_meta'] as Record<string, unknown>)['toolgate/status'], 'succeeded');
  });

  for (const era of ['legacy', 'modern'] as const) {
    it(`lists the tools and calls fs_read over HTTP (${era} era)`, async () => {
      const list = resultOf(await inspect(home, [serving.url, '--protocol-era', era, '--method', 'tools/list']));
      assert.ok((list['tools'] as { name: string }[]).some((t) => t.name === 'fs_read'));
      const call = resultOf(
        await inspect(home, [serving.url, '--protocol-era', era, '--method', 'tools/call', '--tool-name', 'fs_read', '--tool-args-json', '{"path":"a.txt"}']),
      );
      assert.equal((call['structuredContent'] as { content: string }).content, 'alpha\nbeta\n');
      const receiptId = String((call['_meta'] as Record<string, unknown>)['toolgate/receipt_id']);
      assert.equal((await rt.getReceipt(receiptId))?.status, 'succeeded');
    });
  }

  it('exits 5 (tool error) when the receipt did not succeed', async () => {
    const run = await inspect(home, [serving.url, '--method', 'tools/call', '--tool-name', 'fs_read', '--tool-args-json', '{"path":"missing.txt"}']);
    assert.equal(run.code, 5, run.stdout + run.stderr);
  });
});
