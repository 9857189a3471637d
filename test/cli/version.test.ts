// The version is written once, in package.json: `toolgate --version` (the built CLI) and the MCP
// server's info (a real stdio client) both report it, through src/protocol/version.ts, which
// scripts/sync-version.mjs generates from package.json. Before, each spelled '0.1.0' itself.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { TOOLGATE_VERSION } from '../../src/protocol/index.js';
import { tempDirs } from '../support/fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'dist/src/cli/main.js');
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('the version', () => {
  it('is package.json\'s, in the source and the built CLI', () => {
    assert.equal(TOOLGATE_VERSION, PACKAGE_VERSION);
    assert.equal(execFileSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' }).trim(), `toolgate ${PACKAGE_VERSION}`);
  });

  it('is what the MCP server reports as its serverInfo', async () => {
    const d = tempDirs('tg-version');
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state], stderr: 'ignore' });
    const client = new Client({ name: 'version-check', version: '1.0.0' });
    try {
      await client.connect(transport);
      assert.deepEqual(client.getServerVersion(), { name: 'toolgate', version: PACKAGE_VERSION });
    } finally {
      await client.close();
      d.cleanup();
    }
  });
});
