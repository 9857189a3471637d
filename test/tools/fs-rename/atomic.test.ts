// Issue 10 item 12: fs.rename is one atomic step (renameat2 RENAME_NOREPLACE), never a moment
// with both names on one inode; a rename between two names of one inode is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasRenameNoReplace } from '../../../src/resources/index.js';
import { withHarness } from '../fs-write/harness.js';

// Watches names `a` and `b`: the file has one name, so a link count of 2 seen by one lstat is a
// moment when both names exist (a crash then would leave both). One syscall: no false positive.
const OBSERVER = `
const fs = require('node:fs');
const [root, out] = process.argv.slice(1);
let both = 0;
process.send('ready');
for (;;) {
  for (const n of ['a', 'b']) {
    const st = fs.lstatSync(root + '/' + n, { throwIfNoEntry: false });
    if (st && st.nlink > 1) { both++; fs.writeFileSync(out, String(both)); }
  }
}`;

const RENAMES = 400;

void test('renameat2 is available here (koffi loads on this Node)', () => {
  assert.equal(hasRenameNoReplace(), true);
});

void test(`during ${RENAMES} renames of a file an observer never sees both names (a crash could not tear it)`, (t) =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a'), 'payload\n');
    const out = join(h.outside, 'both');
    const child = spawn(process.execPath, ['-e', OBSERVER, h.root, out], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    let ok = 0;
    try {
      await once(child, 'message');
      for (let i = 0; i < RENAMES; i++) {
        const [from, to] = i % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
        const r = await h.call('fs.rename', { from, to });
        assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
        ok++;
      }
    } finally {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
    const both = existsSync(out) ? Number(readFileSync(out, 'utf8')) : 0;
    t.diagnostic(`renames: ${ok}; moments with both names seen: ${both}`);
    assert.equal(both, 0);
  }));

void test('fs.rename between two hard links of one inode is refused (it would succeed and do nothing)', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, 'a'), 'x\n');
    linkSync(join(h.root, 'a'), join(h.root, 'b'));
    for (const overwrite of [false, true]) {
      const r = await h.call('fs.rename', { from: 'a', to: 'b', overwrite });
      assert.equal(r.status, 'failed');
      assert.equal(r.error?.code, 'invalid_resource', JSON.stringify(r.error));
      assert.equal((r.error?.data as { reason: string }).reason, 'same_file');
    }
    assert.equal(statSync(join(h.root, 'a')).ino, statSync(join(h.root, 'b')).ino);
    assert.equal(await h.rt.store.currentRevision(), 0);
  }));

void test('traced with strace, 10 renames use renameat2 and never link(2) a second name', () => {
  const base = mkdtempSync(join(tmpdir(), 'tg-rename-trace-'));
  try {
    mkdirSync(join(base, 'ws'));
    const child = new URL('./rename-syscalls-child.ts', import.meta.url).pathname;
    const trace = join(base, 'trace');
    execFileSync('strace', ['-f', '-qq', '-o', trace, '-e', 'trace=link,linkat,renameat2', process.execPath, '--import', 'tsx', child, join(base, 'ws'), join(base, 'state')], { stdio: 'ignore', timeout: 120_000 });
    const lines = readFileSync(trace, 'utf8').split('\n');
    const links = lines.filter((l) => /\blinkat?\(.*"(a|b)"/.test(l) || /\blinkat?\(.*\/(a|b)"/.test(l));
    const renames = lines.filter((l) => /renameat2\(.*"(a|b)".*RENAME_NOREPLACE\) = 0/.test(l));
    assert.deepEqual(links, [], 'link(2) gave a file two names');
    assert.equal(renames.length, 10);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
