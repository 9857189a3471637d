// The checkpoint file only moves forward: a runtime replaces the checkpoint it wrote itself (read
// back unchanged, it is not checked again) but never one that another runtime on the same state
// dir wrote later with the same key; a file that is not a checkpoint is replaced.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditCheckpoints } from '../../../src/store/audit/checkpoints.js';
import { signCheckpoint, type Checkpoint } from '../../../src/store/audit/checkpoint.js';
import { tempDirs } from '../../support/fixtures.js';

const head = (pos: number): { pos: number; head: string } => ({ pos, head: pos.toString(16).padStart(64, '0') });
const kept = (file: string): Checkpoint => JSON.parse(readFileSync(file, 'utf8')) as Checkpoint;

test('the file moves forward with this runtime, keeps a later checkpoint of another runtime, and replaces junk', async () => {
  const d = tempDirs('tg-audit-order');
  const keys = mkdtempSync(join(tmpdir(), 'tg-audit-order-key-'));
  try {
    mkdirSync(d.state);
    const opts = { keyFile: join(keys, 'audit-key'), every: 1 };
    const a = new AuditCheckpoints(opts, { stateDir: d.state, workspace: d.workspace });
    await a.attach({ ledgerAt: async () => null } as never);
    for (let pos = 1; pos <= 3; pos++) a.advanced(head(pos));
    await a.close();
    assert.equal(kept(a.file).pos, 3, 'each flush replaced the checkpoint this runtime wrote');
    assert.equal(a.writeError, null);

    // Another runtime with the same key wrote a later checkpoint: this one must not go back.
    writeFileSync(a.file, `${JSON.stringify(signCheckpoint(a.key, head(100)), null, 2)}\n`);
    a.advanced(head(4));
    await a.close();
    assert.equal(kept(a.file).pos, 100);

    // An earlier checkpoint written by someone else, or a file that is not one, is replaced.
    writeFileSync(a.file, `${JSON.stringify(signCheckpoint(a.key, head(2)), null, 2)}\n`);
    a.advanced(head(101));
    await a.close();
    assert.equal(kept(a.file).pos, 101);
    writeFileSync(a.file, 'not json');
    a.advanced(head(102));
    await a.close();
    assert.equal(kept(a.file).pos, 102);
    assert.equal(a.writeError, null);
  } finally {
    d.cleanup();
    rmSync(keys, { recursive: true, force: true });
  }
});
