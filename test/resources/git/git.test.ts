// resources/git against a real repository: what fs.search lists, where git keeps what decides
// the list, what fs.delete counts as tracked, and the status shell.exec compares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { changedPaths, gitLocations, listGitFiles, PACE_ENTRIES, parseStatus, readGitStatus, splitZ, trackedEntries, type ConfinedGit } from '../../../src/resources/index.js';
import { tempDirs } from '../../support/fixtures.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });
}

/** A repository with tracked files, a tracked link, an ignored directory and an untracked file. */
function repo(): { root: string; cleanup: () => void } {
  const d = tempDirs('tg-git');
  const root = d.workspace;
  git(root, 'init', '-q');
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'b.ts'), 'b\n');
  writeFileSync(join(root, 'a.ts'), 'a\n');
  symlinkSync('a.ts', join(root, 'link.ts'));
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  mkdirSync(join(root, 'build'));
  writeFileSync(join(root, 'build', 'out.js'), 'x\n');
  writeFileSync(join(root, 'new.ts'), 'n\n');
  return { root, cleanup: d.cleanup };
}

/** The status read run directly on the host, as a test stands in for shell.exec's sandbox. */
const onHost: ConfinedGit = async (argv, env, cwd) => {
  const [cmd, ...args] = argv as [string, ...string[]];
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
};

test('splitZ drops only the empty record after the last NUL', () => {
  assert.deepEqual(splitZ(Buffer.from('a\0b c\0')), ['a', 'b c']);
  assert.deepEqual(splitZ(Buffer.from('')), []);
});

test('listGitFiles lists tracked regular files (not the tracked link), untracked files and ignored directories', async () => {
  const r = repo();
  try {
    const lists = await listGitFiles(r.root, false, new AbortController().signal);
    assert.deepEqual(lists, { tracked: ['.gitignore', 'a.ts', 'src/b.ts'], untracked: ['new.ts'], ignored: ['build/'] });
    const all = await listGitFiles(r.root, true, new AbortController().signal);
    assert.deepEqual(all?.untracked.sort(), ['build/out.js', 'new.ts']);
    assert.deepEqual(all?.ignored, []);
  } finally {
    r.cleanup();
  }
});

test('outside a work tree: listGitFiles, gitLocations and trackedEntries say so with null', async () => {
  const d = tempDirs('tg-nogit');
  try {
    const signal = new AbortController().signal;
    assert.equal(await listGitFiles(d.workspace, false, signal), null);
    assert.equal(await gitLocations(d.workspace, signal), null);
    assert.equal(await trackedEntries(d.workspace, 'a.ts', signal), null);
    assert.equal(await readGitStatus(onHost, d.workspace, signal), null);
  } finally {
    d.cleanup();
  }
});

test('listGitFiles with an aborted signal throws AbortError and starts no git', async () => {
  const r = repo();
  try {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(listGitFiles(r.root, false, ac.signal), { name: 'AbortError' });
  } finally {
    r.cleanup();
  }
});

test('gitLocations names the git dir, the common dir and the top level', async () => {
  const r = repo();
  try {
    const where = await gitLocations(r.root, new AbortController().signal);
    assert.ok(where);
    assert.equal(where.gitDir, join(r.root, '.git'));
    assert.equal(where.commonDir, join(r.root, '.git'));
    assert.equal(where.topLevel, r.root);
  } finally {
    r.cleanup();
  }
});

test('trackedEntries counts the index entries at or under a path', async () => {
  const r = repo();
  try {
    assert.equal(await trackedEntries(r.root, 'src', new AbortController().signal), 1);
    assert.equal(await trackedEntries(r.root, 'a.ts', new AbortController().signal), 1);
    assert.equal(await trackedEntries(r.root, 'new.ts', new AbortController().signal), 0);
  } finally {
    r.cleanup();
  }
});

test('readGitStatus lets the event loop run every PACE_ENTRIES listed paths while it takes their signatures', async () => {
  const r = repo();
  try {
    for (let i = 0; i < 1_000; i++) writeFileSync(join(r.root, `untracked-${i}.txt`), `${i}`);
    let pauses = 0;
    const status = await readGitStatus(onHost, r.root, new AbortController().signal, async () => void pauses++);
    assert.ok(status);
    const untracked = [...status.codes.values()].filter((c) => c === '??').length;
    assert.ok(untracked >= 1_000, `${untracked} untracked`);
    assert.equal(status.signatures.size, status.codes.size);
    assert.equal(pauses, Math.floor(status.codes.size / PACE_ENTRIES));
  } finally {
    r.cleanup();
  }
});

test('parseStatus reads porcelain v1 -z records, names with spaces included', () => {
  const codes = parseStatus(' M a.ts\0?? new file.ts\0D  gone.ts\0');
  assert.deepEqual([...codes], [
    ['a.ts', ' M'],
    ['new file.ts', '??'],
    ['gone.ts', 'D '],
  ]);
});

test('readGitStatus before and after: changedPaths names every path a command changed, and only those', async () => {
  const r = repo();
  try {
    const signal = new AbortController().signal;
    writeFileSync(join(r.root, 'a.ts'), 'dirty before\n');
    const before = await readGitStatus(onHost, r.root, signal);
    assert.ok(before);
    assert.equal(before.codes.get('a.ts'), ' M');
    // The "command": a.ts changed again (same status, new bytes), src/b.ts modified, new.ts deleted.
    writeFileSync(join(r.root, 'a.ts'), 'dirty after, longer\n');
    writeFileSync(join(r.root, 'src', 'b.ts'), 'changed\n');
    execFileSync('rm', [join(r.root, 'new.ts')]);
    const after = await readGitStatus(onHost, r.root, signal);
    assert.ok(after);
    assert.deepEqual(changedPaths(before, after), { paths: ['a.ts', 'new.ts', 'src/b.ts'], truncated: false });
    assert.deepEqual(changedPaths(after, after), { paths: [], truncated: false });
  } finally {
    r.cleanup();
  }
});

test('readGitStatus is null when the confined runner reports a failure', async () => {
  const r = repo();
  try {
    assert.equal(await readGitStatus(async () => null, r.root, new AbortController().signal), null);
  } finally {
    r.cleanup();
  }
});
