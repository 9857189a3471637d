// Which receipts fs.undo restores is a property of each tool's definition (`undoable`), not a
// list of names inside fs.undo; and the property is wiring, not part of the manifest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { anyTool, defineTool, entryOf, Registry, type ToolSpec } from '../../../src/registry/index.js';
import { builtinTools } from '../../../src/tools/index.js';
import { createFsWrite } from '../../../src/tools/fs-write/tool.js';
import { createFsUndo } from '../../../src/tools/undo/tool.js';
import { testRuntime, envelope } from '../../support/fixtures.js';

test('the built-in tools that say undoable are exactly the four mutations and fs.undo itself', () => {
  const undoable = builtinTools()
    .filter((t) => t.undoable)
    .map((t) => t.name)
    .sort();
  assert.deepEqual(undoable, ['fs.delete', 'fs.patch', 'fs.rename', 'fs.undo', 'fs.write']);
});

test('undoable defaults to false and is not a manifest field: it moves no registry revision', () => {
  const spec: ToolSpec<Record<string, never>, null, undefined> = {
    name: 'probe.noop',
    version: '1.0.0',
    description: 'does nothing',
    owner: 'test',
    effect_class: 'read',
    reversible: true,
    capabilities: [],
    args: z.strictObject({}),
    result: z.null(),
    timeout_ms: 1000,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: () => Promise.resolve({ status: 'succeeded', result: null }),
  };
  const plain = defineTool(spec);
  const marked = defineTool({ ...spec, undoable: true });
  assert.equal(plain.undoable, false);
  assert.equal(marked.undoable, true);
  assert.equal('undoable' in entryOf(anyTool(marked)), false);
  assert.equal(new Registry([anyTool(plain)]).manifest.revision, new Registry([anyTool(marked)]).manifest.revision);
});

test('fs.undo follows the definitions it is given: a tool not marked undoable is refused and nothing changes', async () => {
  const { rt, workspace, done } = await testRuntime({ tools: [anyTool(createFsWrite()), anyTool(createFsUndo({ undoable: () => false }))] });
  try {
    const w = await rt.call(envelope('fs.write', { path: 'a.txt', content: 'new\n' }, { idempotency_key: 'k1' }));
    assert.equal(w.status, 'succeeded', JSON.stringify(w.error));
    const u = await rt.call(envelope('fs.undo', { receipt_id: w.receipt_id }, { idempotency_key: 'k2' }));
    assert.equal(u.error?.code, 'invalid_resource');
    assert.deepEqual(u.error?.data, { receipt_id: w.receipt_id, tool: 'fs.write' });
    assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'new\n');
  } finally {
    await done();
  }
});

test('with the built-in list, the same fs.write receipt is undone', async () => {
  const { rt, workspace, done } = await testRuntime();
  try {
    writeFileSync(join(workspace, 'a.txt'), 'old\n');
    const w = await rt.call(envelope('fs.write', { path: 'a.txt', content: 'new\n', mode: 'create_or_replace' }, { idempotency_key: 'k1' }));
    assert.equal(w.status, 'succeeded', JSON.stringify(w.error));
    const u = await rt.call(envelope('fs.undo', { receipt_id: w.receipt_id }, { idempotency_key: 'k2' }));
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.equal(readFileSync(join(workspace, 'a.txt'), 'utf8'), 'old\n');
  } finally {
    await done();
  }
});
