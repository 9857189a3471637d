// The README's library example, through the package entry a user imports ('toolgate', the built dist).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from './support/fixtures.js';

test('import { createRuntime } from "toolgate" runs a call and answers with a receipt', async () => {
  const { createRuntime, ERROR_CODES } = await import('toolgate');
  const d = tempDirs();
  try {
    mkdirSync(join(d.workspace, 'src'));
    writeFileSync(join(d.workspace, 'src', 'index.ts'), 'export const x = 1;\n');
    const runtime = await createRuntime({ workspace: d.workspace, stateDir: d.state });
    const receipt = await runtime.call({
      protocol_version: 'tool-call.v1',
      task_id: 'task-1',
      tool: 'fs.read',
      arguments: { path: 'src/index.ts', max_lines: 50 },
    });
    assert.equal(receipt.status, 'succeeded');
    assert.equal((receipt.result as { content: string }).content, 'export const x = 1;\n');
    assert.ok(ERROR_CODES.includes('path_escape'));
    await runtime.close();
  } finally {
    d.cleanup();
  }
});
