import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../../../src/runtime/index.js';

void test('configured secret patterns are added to the defaults, never replace them', async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-mut-')));
  mkdirSync(join(base, 'ws'));
  writeFileSync(join(base, 'ws/token.secret'), 'k');
  const rt = await createRuntime({ workspace: join(base, 'ws'), stateDir: join(base, 'state'), secretPatterns: ['*.secret', 'private/'] });
  try {
    const call = (tool: string, args: Record<string, unknown>) => rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool, arguments: args });
    assert.equal((await call('fs.read', { path: 'token.secret' })).error?.code, 'secret_path');
    assert.equal((await call('fs.write', { path: 'x.secret', content: 'v' })).error?.code, 'policy_denied');
    assert.equal((await call('fs.write', { path: 'private/notes.txt', content: 'v', create_parents: true })).error?.code, 'policy_denied');
    assert.equal((await call('fs.write', { path: '.env', content: 'A=1' })).error?.code, 'policy_denied');
    assert.equal((await call('fs.write', { path: 'ok.txt', content: 'v' })).status, 'succeeded');
    assert.deepEqual(readdirSync(join(base, 'ws')).sort(), ['ok.txt', 'token.secret']);
  } finally {
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
});
