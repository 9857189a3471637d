// The official MCP conformance suite (0.1.16) against `serveMcpHttp`. The suite needs Node >= 22
// (fs.globSync), so it lives in test/node22/, run on Node 22 and 24 by scripts/test-node-versions.mjs
// with the suite installed from scripts/node-versions/tools' own lock. Scenarios that
// call the suite's own test tools, prompts or resources do not apply (docs/mcp-notes.md §2).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../src/server/index.js';
import { tempDirs } from '../support/fixtures.js';

const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'] as const;

const SUITE = join(import.meta.dirname, '../../scripts/node-versions/tools/node_modules/@modelcontextprotocol/conformance/dist/index.js');


function runScenario(node: string, url: string, scenario: string, out: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [SUITE, 'server', '--url', url, '--scenario', scenario, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

interface Check {
  readonly id: string;
  readonly status: string;
  readonly errorMessage?: string;
}

describe('official MCP conformance suite against serve --http', () => {
  const dirs = tempDirs('tg-conformance');
  let rt: Runtime;
  let serving: HttpServing;

  before(async () => {
    writeFileSync(join(dirs.workspace, 'a.txt'), 'alpha\n');
    rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state });
    serving = await serveMcpHttp(rt, { port: 0 });
  });

  after(async () => {
    await serving.close();
    await rt.close();
    dirs.cleanup();
  });

  for (const scenario of APPLICABLE) {
    it(`passes ${scenario}`, async () => {
      const out = mkdtempSync(join(dirs.base, 'out-'));
      const { code, output } = await runScenario(process.execPath, serving.url, scenario, out);
      const [dir] = readdirSync(out);
      assert.ok(dir, `no results written:\n${output}`);
      const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[];
      assert.ok(checks.length > 0);
      assert.deepEqual(
        checks.filter((c) => c.status !== 'SUCCESS').map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ''}`),
        [],
      );
      assert.equal(code, 0, output);
    });
  }
});
