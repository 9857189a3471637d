import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { undoCommand } from '../../../src/cli/undo.js';
import { withHarness } from '../fs-write/harness.js';

void test('toolgate undo RECEIPT_ID restores the file and prints the undo receipt (exit 0), then conflicts (exit 1)', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a.txt'), 'before\n');
    const w = await h.call('fs.write', { path: 'a.txt', content: 'after\n', mode: 'create_or_replace' });
    assert.equal(w.status, 'succeeded');
    const stateDir = h.rt.stateDir;
    await h.rt.close(); // the command opens its own runtime on the same state
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t) };
    const code = await undoCommand.run([w.receipt_id, '--workspace', h.root, '--state-dir', stateDir], io);
    assert.equal(code, 0, out.join('\n'));
    assert.equal(readFileSync(join(h.root, 'a.txt'), 'utf8'), 'before\n');
    const printed = JSON.parse(out[0] ?? '{}') as { tool: string; status: string };
    assert.equal(printed.tool, 'fs.undo');
    writeFileSync(join(h.root, 'a.txt'), 'edited by hand\n');
    const again: string[] = [];
    const code2 = await undoCommand.run([w.receipt_id, '--workspace', h.root, '--state-dir', stateDir], { out: (t) => again.push(t), err: (t) => again.push(t) });
    assert.equal(code2, 1);
    assert.equal((JSON.parse(again[0] ?? '{}') as { error: { code: string } }).error.code, 'undo_conflict');
  }));
