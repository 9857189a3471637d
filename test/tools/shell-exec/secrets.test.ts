import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { newMarker } from '../../sandbox/fixtures.js';
import { git, resultOf, shellRig } from './rig.js';

/** Secret files of the workspace (the built-in patterns and one configured), each holding a fresh canary. */
function plantSecrets(workspace: string): Map<string, string> {
  const secrets = new Map<string, string>();
  for (const rel of ['.env', 'sub/deep/.env.local', 'keys/server.pem', '.aws/credentials', 'config/.docker/config.json', 'data/token.secret', 'id_ed25519']) {
    const canary = `tgcanary${newMarker()}`;
    mkdirSync(dirname(join(workspace, rel)), { recursive: true });
    writeFileSync(join(workspace, rel), `${canary}\n`);
    secrets.set(rel, canary);
  }
  writeFileSync(join(workspace, 'ok.txt'), 'ordinary\n');
  return secrets;
}

test('no secret file of the workspace can be read through the shell: by name, copy, move, hard link, archive or search', async () => {
  const r = await shellRig({ git: true, secretPatterns: ['*.secret'] });
  try {
    const secrets = plantSecrets(r.workspace);
    const names = [...secrets.keys()];
    const script = [
      `cat ${names.join(' ')}`,
      'cat ok.txt',
      'for f in .env keys/server.pem sub/deep/.env.local; do ln "$f" "$f.hl" && cat "$f.hl"; done',
      'cp .env copied; cat copied',
      'mv .env moved; cat moved',
      'mv sub sub2 && cat sub2/deep/.env.local',
      'python3 -c \'import os; fd = os.open(".env", os.O_RDONLY); print(os.read(fd, 100))\'',
      'grep -ra tgcanary . ; tar cf - --exclude=.git . 2>/dev/null | grep -a tgcanary',
      'ls -A .aws; echo x > .aws/new',
      'true',
    ].join('; ');
    const receipt = await r.exec(script);
    const res = resultOf(receipt);
    assert.equal(res.stdout.artifact, null);
    const seen = res.stdout.preview + res.stderr.preview;
    const leaked = [...secrets].filter(([, canary]) => seen.includes(canary)).map(([rel]) => rel);
    assert.deepEqual(leaked, [], 'secret files whose contents reached the command');
    assert.match(res.stdout.preview, /ordinary\n/, 'control: an ordinary file reads');
    assert.match(res.stderr.preview, /\.env\.hl.*Invalid cross-device link/);
    assert.equal((res.stderr.preview.match(/Invalid cross-device link/g) ?? []).length, 3, 'each hard link fails with EXDEV');
    // The host's secrets are where they were, with one name each.
    for (const [rel, canary] of secrets) {
      const path = rel.startsWith('sub/') ? join(r.workspace, rel.replace('sub/', 'sub2/')) : join(r.workspace, rel);
      assert.equal(readFileSync(path, 'utf8'), `${canary}\n`, rel);
      assert.equal(statSync(path).nlink, 1, `${rel} has no second name`);
    }
    for (const made of ['.env.hl', 'keys/server.pem.hl', 'copied', 'moved', '.aws/new']) assert.ok(!existsSync(join(r.workspace, made)), made);
    // The host's own git still sees the secrets where they were (nothing replaced them).
    assert.doesNotMatch(git(r.workspace, 'status', '--porcelain'), /moved|copied/);
  } finally {
    await r.done();
  }
});

test('a secret created during a run is masked in every later run', async () => {
  const r = await shellRig();
  try {
    const canary = `tgcanary${newMarker()}`;
    const first = await r.exec(`mkdir -p later && echo ${canary} > later/.env && cat later/.env`);
    assert.equal(resultOf(first).stdout.preview, `${canary}\n`, 'its own bytes, in the run that wrote them');
    const second = await r.exec('cat later/.env');
    assert.doesNotMatch(resultOf(second).stdout.preview + resultOf(second).stderr.preview, new RegExp(canary));
    assert.match(resultOf(second).stderr.preview, /Permission denied/);
  } finally {
    await r.done();
  }
});
