// The same questions over stdio (the server a child process, the SDK client here): approve on
// both eras, and the answer leaves the file written once.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';
import { answerOf, ASKING_GRANT, ERAS } from './support.js';

const MAIN = join(import.meta.dirname, '../support/mcp-stdio-main.ts');

describe('approvals through an MCP client over stdio', () => {
  const dirs = tempDirs('tg-approve-stdio');
  after(() => dirs.cleanup());

  for (const era of ERAS) {
    it(`${era}: approve writes the file; decline leaves nothing`, async () => {
      const asked: string[] = [];
      let answer: 'approve' | 'decline' = 'approve';
      const client = new Client(
        { name: 'stdio-approver', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } }, ...(era === 'legacy' ? {} : { versionNegotiation: { mode: { pin: era } } }) },
      );
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params.message);
        return answer === 'approve' ? { action: 'accept', content: { decision: 'approve' } } : { action: 'decline' };
      });
      const config = { workspace: dirs.workspace, state: join(dirs.base, `state-${era}`), ledger: join(dirs.base, 'ledger'), taskId: `stdio-${era}`, grant: ASKING_GRANT };
      await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', MAIN, JSON.stringify(config)], stderr: 'inherit' }));
      try {
        const yes = answerOf(await client.callTool({ name: 'fs_write', arguments: { path: `${era}-yes.txt`, content: 'yes', mode: 'create' } }));
        assert.equal(yes.status, 'succeeded', yes.text);
        assert.equal(readFileSync(join(dirs.workspace, `${era}-yes.txt`), 'utf8'), 'yes');
        answer = 'decline';
        const no = answerOf(await client.callTool({ name: 'fs_write', arguments: { path: `${era}-no.txt`, content: 'no', mode: 'create' } }));
        assert.equal(no.code, 'policy_denied');
        assert.equal(existsSync(join(dirs.workspace, `${era}-no.txt`)), false);
        assert.equal(asked.length, 2);
        assert.match(asked[0] ?? '', new RegExp(`create path ${era}-yes\\.txt`));
      } finally {
        await client.close();
      }
    });
  }
});
