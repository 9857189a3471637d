// The commit of a file set in one round of syncs (src/resources/mutation/file-set.ts,
// src/resources/paths/file-transaction.ts): the intent is recorded while the staged files sync,
// after every new content is staged and before any file moves; the files a commit replaces are
// held open across the renames and released before the call returns, after a success and after
// a rollback alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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

/**
 * This process's descriptors of files beneath `root` (a held, replaced file shows as "… (deleted)").
 * Directories are left out: the runtime's sweep of leftovers walks them in the background after open.
 */
function fileFdsBeneath(root: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${root}/`) && !fstatSync(Number(fd)).isDirectory()) out.push(target);
    } catch {
      // closed while listed (the fd of readdirSync itself, or a walk's directory)
    }
  }
  return out.sort();
}

void test('the files a patch replaces are not held open after it returns, after a success and after a rollback', () =>
  withHarness(async (h) => {
    const args = fiveFiles(h.root);
    const before = fileFdsBeneath(h.root);
    const ok = await h.call('fs.patch', args);
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.deepEqual(fileFdsBeneath(h.root), before, 'no descriptor of a replaced file left open');

    const back = { files: [1, 2, 3, 4, 5].map((i) => ({ path: `d${i}/f.txt`, edits: [{ old: `FILE ${i}`, new: `file ${i}` }] })) };
    execFileSync('chattr', ['+i', join(h.root, 'd5/f.txt')]);
    const failed = await h.call('fs.patch', back);
    assert.equal(failed.status, 'failed');
    assert.deepEqual(failed.partial?.restored, ['d1/f.txt', 'd2/f.txt', 'd3/f.txt', 'd4/f.txt']);
    assert.deepEqual(fileFdsBeneath(h.root), before, 'a rollback releases them too');
  }));

void test('the intent is recorded after every new content is staged and before the first file moves', async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-rounds-')));
  const root = join(base, 'ws');
  mkdirSync(root);
  const ws = Workspace.open(root);
  try {
    const tool = createFsPatch();
    const args = tool.args.parse(fiveFiles(root));
    const original = snapshot(root);
    const n = await tool.normalize(args, { workspace: ws, task_id: 't' as TaskId, receipts: { get: async () => undefined }, grants: async () => true });
    const seen: { staged: number; unchanged: boolean }[] = [];
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
      revision: { current: async () => 'r0', advance: async () => 'r1' },
      receipts: { get: async () => undefined },
      progress: () => {},
      hidden_paths: [],
      addSecret: () => {},
      markSent: async () => {
        const staged = [1, 2, 3, 4, 5].filter((i) => readdirSync(join(root, `d${i}`)).some((e) => e.startsWith('.tg-') && e.endsWith('.tmp'))).length;
        const unchanged = [1, 2, 3, 4, 5].every((i) => readFileSync(join(root, `d${i}/f.txt`), 'utf8') === `file ${i}\nkeep\n`);
        seen.push({ staged, unchanged });
      },
    };
    const out = await tool.execute(ctx);
    assert.equal(out.status, 'succeeded', JSON.stringify(out.error));
    assert.deepEqual(seen, [{ staged: 5, unchanged: true }], 'markSent once, with all five staged and none moved');
    for (let i = 1; i <= 5; i++) assert.equal(readFileSync(join(root, `d${i}/f.txt`), 'utf8'), `FILE ${i}\nkeep\n`);
    assert.equal(Object.keys(snapshot(root)).length, Object.keys(original).length, 'no staged file left');
  } finally {
    ws.close();
    rmSync(base, { recursive: true, force: true });
  }
});

void test('the directories of a file set are synced once each, however many of its files they hold', async () => {
  // Each file of a set holds its own descriptor of its parent; an fsync of a directory whose
  // journal commit is done still flushes the disk's cache, so a directory synced once per file
  // cost fs.patch's 20 files in 11 directories 9 flushes more than needed (bench/patch).
  const { syncDirectories } = await import('../../../src/resources/paths/atomic-replace.js');
  const { closeSync, openSync } = await import('node:fs');
  const root = mkdtempSync(join(tmpdir(), 'tg-dirsync-'));
  try {
    mkdirSync(join(root, 'a'));
    mkdirSync(join(root, 'b'));
    const fds = [join(root, 'a'), join(root, 'b'), join(root, 'a'), join(root, 'a'), join(root, 'b')].map((d) => openSync(d, 'r'));
    const synced: string[] = [];
    try {
      await syncDirectories(fds, async (fd) => void synced.push(readlinkSync(`/proc/self/fd/${fd}`)));
      assert.deepEqual(synced.sort(), [join(root, 'a'), join(root, 'b')].map((d) => realpathSync(d)));
      synced.length = 0;
      await syncDirectories([fds[1] as number, fds[1] as number], async (fd) => void synced.push(readlinkSync(`/proc/self/fd/${fd}`)));
      assert.deepEqual(synced, [realpathSync(join(root, 'b'))]);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
