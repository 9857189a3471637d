import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

test('npm run demo runs every step and ends with an intact receipt chain', () => {
  const r = spawnSync(process.execPath, ['scripts/demo.mjs'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /status=denied .*\n {2}path_escape/);
  assert.match(r.stdout, /secret_path/);
  assert.match(r.stdout, /already_exists/);
  assert.match(r.stdout, /shell\.exec@1\.3\.0\tsucceeded/);
  assert.match(r.stdout, /fs\.undo@1\.0\.0\tsucceeded/);
  assert.match(r.stdout, /^ok: 7 receipts in 1 tasks$/m);
});
