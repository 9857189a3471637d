// The three-way merge of one path against real git objects: base = the input revision, ours =
// the parent's file now, theirs = the child's result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mergePath } from '../../src/tasks/merge.js';
import { repositoryAt } from '../../src/tasks/worktree.js';
import { gitTree } from './fixtures.js';

function commitAll(dir: string): string {
  execFileSync('git', ['-C', dir, 'add', '-A']);
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'c', '--allow-empty']);
  return execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
}

test('each case of a path: unchanged, taken, deleted, merged, and the three conflicts', async () => {
  const t = gitTree('tg-merge', { 'm.txt': '1\n2\n3\n4\n5\n', 'd.txt': 'd\n', 'keep.txt': 'k\n' });
  try {
    const base = execFileSync('git', ['-C', t.workspace, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    writeFileSync(join(t.workspace, 'm.txt'), '1\n2\n3\n4\nFIVE\n');
    rmSync(join(t.workspace, 'd.txt'));
    writeFileSync(join(t.workspace, 'new.txt'), 'theirs\n');
    const theirs = commitAll(t.workspace);
    const repo = await repositoryAt(t.workspace);
    const b = (s: string): Buffer => Buffer.from(s);
    assert.deepEqual(await mergePath(repo, base, theirs, 'keep.txt', b('k\n')), { path: 'keep.txt', kind: 'unchanged' });
    assert.deepEqual(await mergePath(repo, base, theirs, 'm.txt', b('1\n2\n3\n4\n5\n')), { path: 'm.txt', kind: 'write', data: b('1\n2\n3\n4\nFIVE\n') });
    assert.deepEqual(await mergePath(repo, base, theirs, 'm.txt', b('ONE\n2\n3\n4\n5\n')), { path: 'm.txt', kind: 'write', data: b('ONE\n2\n3\n4\nFIVE\n') }, 'hunks apart merge');
    assert.deepEqual(await mergePath(repo, base, theirs, 'm.txt', b('1\n2\n3\n4\nfive\n')), { path: 'm.txt', kind: 'conflict', reason: 'both_changed' });
    assert.deepEqual(await mergePath(repo, base, theirs, 'd.txt', b('d\n')), { path: 'd.txt', kind: 'delete' });
    assert.deepEqual(await mergePath(repo, base, theirs, 'd.txt', b('changed\n')), { path: 'd.txt', kind: 'conflict', reason: 'deleted_and_changed' });
    assert.deepEqual(await mergePath(repo, base, theirs, 'd.txt', null), { path: 'd.txt', kind: 'unchanged' }, 'deleted on both');
    assert.deepEqual(await mergePath(repo, base, theirs, 'new.txt', null), { path: 'new.txt', kind: 'write', data: b('theirs\n') });
    assert.deepEqual(await mergePath(repo, base, theirs, 'new.txt', b('ours\n')), { path: 'new.txt', kind: 'conflict', reason: 'added_on_both' });
    assert.deepEqual(await mergePath(repo, base, theirs, 'm.txt', null), { path: 'm.txt', kind: 'conflict', reason: 'deleted_and_changed' });
  } finally {
    t.cleanup();
  }
});
