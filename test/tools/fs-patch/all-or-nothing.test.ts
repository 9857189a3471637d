// "A patch whose fifth file cannot be written leaves all five files byte-identical." The tests
// run as root, where permission bits do not stop a write, so the failures are real in other
// ways: an immutable file (chattr +i: rename over it fails with EPERM after four files were
// replaced), an immutable directory (the staged copy cannot be created), and a directory
// replaced by another between the check and the write (the parent identity re-check refuses).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ArtifactStore } from '../../../src/artifacts/index.js';
import type { AttemptId, TaskId } from '../../../src/protocol/index.js';
import type { ExecuteContext } from '../../../src/registry/index.js';
import { Workspace } from '../../../src/resources/index.js';
import { createFsPatch, type FsPatchArgs } from '../../../src/tools/fs-patch/tool.js';
import { snapshot, withHarness } from '../fs-write/harness.js';

function fiveFiles(root: string): FsPatchArgs {
  for (let i = 1; i <= 5; i++) {
    mkdirSync(join(root, `d${i}`), { recursive: true });
    writeFileSync(join(root, `d${i}/f.txt`), `file ${i}\nkeep\n`);
  }
  return { files: [1, 2, 3, 4, 5].map((i) => ({ path: `d${i}/f.txt`, edits: [{ old: `file ${i}`, new: `FILE ${i}` }] })) };
}

void test('the fifth file is immutable: four replaced files are restored and all five are byte-identical', () =>
  withHarness(async (h) => {
    const args = fiveFiles(h.root);
    execFileSync('chattr', ['+i', join(h.root, 'd5/f.txt')]);
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', args);
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'execution_failed');
    assert.equal((r.error?.data as { errno: string; failed: string }).errno, 'EPERM');
    assert.equal((r.error?.data as { failed: string }).failed, 'd5/f.txt');
    assert.deepEqual(r.partial, { applied: [], unapplied: ['d5/f.txt'], restored: ['d1/f.txt', 'd2/f.txt', 'd3/f.txt', 'd4/f.txt'] });
    assert.deepEqual(snapshot(h.root), before, 'same bytes and modes, and no temporary files left');
  }));

void test('the fifth directory is immutable: nothing is replaced at all', () =>
  withHarness(async (h) => {
    const args = fiveFiles(h.root);
    execFileSync('chattr', ['+i', join(h.root, 'd5')]);
    const before = snapshot(h.root);
    const r = await h.call('fs.patch', args);
    assert.equal(r.error?.code, 'execution_failed');
    assert.deepEqual(r.partial, { applied: [], unapplied: ['d1/f.txt', 'd2/f.txt', 'd3/f.txt', 'd4/f.txt', 'd5/f.txt'], restored: [] });
    assert.deepEqual(snapshot(h.root), before);
  }));

void test('the fifth directory is replaced after the check: the write refuses and the four are restored', async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-mut-')));
  const root = join(base, 'ws');
  mkdirSync(root);
  const ws = Workspace.open(root);
  try {
    const tool = createFsPatch();
    const args = tool.args.parse(fiveFiles(root));
    const n = await tool.normalize(args, { workspace: ws, task_id: 't' as TaskId, receipts: { get: async () => undefined }, grants: async () => true });
    let revision = 0;
    const events: string[] = [];
    const ctx: ExecuteContext<FsPatchArgs, typeof n.prepared> = {
      args,
      prepared: n.prepared,
      action: { tool: 'fs.patch', tool_version: '1.0.0', effect_class: 'write', resources: n.resources, args_digest: 'sha256:x' as never },
      signal: new AbortController().signal,
      deadline: Date.now() + 60_000,
      task_id: 't' as TaskId,
      attempt_id: 'a' as AttemptId,
      logical_effect_id: null,
      workspace: ws,
      artifacts: new ArtifactStore(join(base, 'artifacts')),
      tokens: { sign: () => '', verify: () => ({}) },
      revision: { current: async () => `r${revision}`, advance: async () => `r${++revision}` },
      receipts: { get: async () => undefined },
      progress: () => {},
      hidden_paths: [],
      addSecret: () => {},
      markSent: async () => {
        // Someone swaps d5 for a copy right after every check passed.
        events.push('sent');
        renameSync(join(root, 'd5'), join(root, 'd5.orig'));
        mkdirSync(join(root, 'd5'));
        writeFileSync(join(root, 'd5/f.txt'), readFileSync(join(root, 'd5.orig/f.txt')));
      },
    };
    const out = await tool.execute(ctx);
    assert.equal(out.status, 'failed');
    assert.equal(out.error?.code, 'precondition_failed');
    assert.equal((out.error?.data as { reason: string }).reason, 'parent_changed');
    assert.deepEqual(out.partial?.restored, ['d1/f.txt', 'd2/f.txt', 'd3/f.txt', 'd4/f.txt']);
    assert.deepEqual(events, ['sent']);
    for (let i = 1; i <= 4; i++) assert.equal(readFileSync(join(root, `d${i}/f.txt`), 'utf8'), `file ${i}\nkeep\n`);
    assert.equal(readFileSync(join(root, 'd5/f.txt'), 'utf8'), 'file 5\nkeep\n');
    assert.deepEqual(snapshot(join(root, 'd5.orig')), snapshot(join(root, 'd5')), 'no staged file left in the moved directory');
    assert.equal(revision, 1, 'the restore touched files: the revision moved once');
  } finally {
    ws.close();
    rmSync(base, { recursive: true, force: true });
  }
});
