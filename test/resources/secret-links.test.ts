// Issue 10 item 3 (fs half): a hard link to a secret file is the secret, whatever its name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withHarness } from '../tools/fs-write/harness.js';

const CANARY = 'AWS_SECRET_ACCESS_KEY=canary-3f9a1c7e';

/** Every byte under the state dir (DB, WAL, artifacts) as one string, to look for the canary. */
function stateBytes(dir: string): string {
  let out = '';
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out += stateBytes(p);
    else if (e.isFile()) out += readFileSync(p, 'latin1');
  }
  return out;
}

void test('a hard link to .env (ln .env x) is refused by fs.read, fs.patch, fs.write, fs.delete and fs.rename, and the secret is stored nowhere', () =>
  withHarness(async (h) => {
    writeFileSync(join(h.root, '.env'), `${CANARY}\n`);
    mkdirSync(join(h.root, 'deep/er'), { recursive: true });
    mkdirSync(join(h.root, '.ssh'));
    writeFileSync(join(h.root, '.ssh/key'), `${CANARY}-ssh\n`);
    linkSync(join(h.root, '.env'), join(h.root, 'x'));
    linkSync(join(h.root, '.env'), join(h.root, 'deep/er/notes.txt'));
    linkSync(join(h.root, '.ssh/key'), join(h.root, 'y'));
    writeFileSync(join(h.root, 'plain.txt'), 'plain\n');
    linkSync(join(h.root, 'plain.txt'), join(h.root, 'plain-too.txt'));

    for (const path of ['x', 'deep/er/notes.txt', 'y']) {
      const r = await h.call('fs.read', { path });
      assert.equal(r.error?.code, 'secret_path', `${path}: ${JSON.stringify(r.result)}`);
      assert.equal((r.error?.data as { reason: string }).reason, 'hard_link_to_secret');
    }
    const calls: [string, Record<string, unknown>][] = [
      ['fs.patch', { files: [{ path: 'x', edits: [{ old: 'nothing like this', new: 'z' }] }] }],
      ['fs.write', { path: 'x', content: 'overwritten\n', mode: 'create_or_replace' }],
      ['fs.delete', { path: 'x' }],
      ['fs.rename', { from: 'plain.txt', to: 'x', overwrite: true }],
    ];
    for (const [tool, args] of calls) {
      const r = await h.call(tool, args);
      assert.equal(r.error?.code, 'secret_path', `${tool}: ${JSON.stringify(r.error)}`);
    }
    // An ordinary file with two names is still read.
    const ok = await h.call('fs.read', { path: 'plain-too.txt' });
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.equal(readFileSync(join(h.root, 'x'), 'utf8'), `${CANARY}\n`);
    assert.equal(stateBytes(join(h.root, '..', 'state')).includes('canary-3f9a1c7e'), false, 'the secret reached the state dir');
  }));
