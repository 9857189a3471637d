// The model can never approve: no registered tool reaches the approval API, and the state that
// holds approvals is beyond every tool's reach. Attacked through a real MCP client with the
// tools a model has (fs.write outside the root, shell.exec in the sandbox against the database).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { serveMcpHttp, type HttpServing } from '../../src/server/index.js';
import { tempDirs } from '../support/fixtures.js';
import { answerOf, connect } from './support.js';

const SRC = join(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Where the approval API may be called from: the policy layer itself, the stores, and the people's surfaces. */
const MAY_DECIDE = [/^policy\//, /^store\//, /^cli\//, /^ui\//, /^server\/approval-/];

describe('no tool can approve', () => {
  it('no module outside the policy layer, the stores and the people surfaces (CLI, web view, MCP questions) decides an approval', () => {
    const deciding = /\bdecideApproval\b|\bapprovals\.(approve|deny)\(|\bApprovalQuestions\b|\buseAsk\(|policy_approval/;
    const offenders = sources(SRC)
      .map((f) => relative(SRC, f))
      .filter((f) => !MAY_DECIDE.some((re) => re.test(f)))
      .filter((f) => deciding.test(readFileSync(join(SRC, f), 'utf8')));
    // src/index.ts re-exports the API for library users (a host program, not a tool).
    assert.deepEqual(offenders.filter((f) => f !== 'index.ts'), []);
  });

  it('tool folders import nothing that can decide (neither the policy layer nor the store)', () => {
    const roots = ['tools', 'upstream', 'profiles', 'registry', 'sandbox', 'resources'];
    // A value import (not `import type`) of a layer that holds or decides approvals.
    const valueImport = /^import (?!type\b)[^;]*from '(\.\.\/)+(policy|store|cli|server|ui)\//m;
    const offenders = roots.flatMap((r) => sources(join(SRC, r)).filter((f) => valueImport.test(readFileSync(f, 'utf8'))).map((f) => relative(SRC, f)));
    assert.deepEqual(offenders, []);
  });

  describe('through MCP, with every tool the model has', () => {
    const dirs = tempDirs('tg-approve-attack');
    let rt: Runtime;
    let serving: HttpServing;
    let client: Client;
    let approvalId = '';
    const db = (): string => join(dirs.state, 'toolgate.db');

    before(async () => {
      rt = await createRuntime({
        workspace: dirs.workspace,
        stateDir: dirs.state,
        grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'], approval_required: ['write'] },
        policies: [
          {
            name: 'all.cedar',
            text: '@id("all") permit (principal, action, resource);',
          },
        ],
      });
      serving = await serveMcpHttp(rt, { port: 0, taskId: 'attack-task' });
      client = await connect(serving.url, '2026-07-28', null);
      const r = answerOf(await client.callTool({ name: 'fs_write', arguments: { path: 'wanted.txt', content: 'x', mode: 'create' } }));
      assert.equal(r.code, 'approval_required');
      approvalId = r.approvalId ?? '';
    });

    after(async () => {
      await client.close().catch(() => {});
      await serving.close();
      await rt.close();
      dirs.cleanup();
    });

    it('no listed tool is about approvals', async () => {
      const { tools } = await client.listTools();
      assert.ok(tools.length > 5);
      assert.deepEqual(tools.filter((t) => /approv/i.test(`${t.name} ${t.description ?? ''}`)).map((t) => t.name), []);
    });

    it('fs.write cannot reach the state database, and shell.exec in the sandbox cannot see it: 0 crossings', async () => {
      const rel = relative(dirs.workspace, db());
      const attempts = [
        answerOf(await client.callTool({ name: 'fs_write', arguments: { path: rel, content: 'x', mode: 'create' } })),
        answerOf(await client.callTool({ name: 'fs_write', arguments: { path: db(), content: 'x', mode: 'create' } })),
        answerOf(
          await client.callTool({
            name: 'shell_exec',
            arguments: { shell: 'sh', script: `ls -la ${dirs.state}; echo pwned >> ${db()}; python3 -c "import sqlite3; c=sqlite3.connect('${db()}'); c.execute(\\"UPDATE policy_approvals SET status='approved'\\"); c.commit()"` },
          }),
        ),
      ];
      for (const a of attempts.slice(0, 2)) assert.ok(a.code === 'path_escape' || a.code === 'invalid_resource' || a.code === 'approval_required', `${a.code}: ${a.text}`);
      // The sandbox does not show the state dir (a private /tmp): its listing there is empty, and
      // what the script appended went to a file of the sandbox's own, not to the database.
      assert.match(attempts[2]?.text ?? '', /total 0/);
      assert.doesNotMatch(attempts[2]?.text ?? '', /toolgate\.db/);
      assert.equal(readFileSync(db()).includes('pwned'), false);
      assert.equal((await rt.approvals.get(approvalId))?.status, 'pending', 'the approval was not decided');
      const again = answerOf(await client.callTool({ name: 'fs_write', arguments: { path: 'wanted.txt', content: 'x', mode: 'create' } }));
      assert.equal(again.code, 'approval_required');
    });
  });
});
