import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sandboxDoctor } from '../../src/sandbox/index.js';

test('doctor reports a sandbox that really starts, cgroups, git and rg on this host', async () => {
  const checks = await sandboxDoctor();
  const byName = new Map(checks.map((c) => [c.name, c]));
  for (const name of ['bubblewrap', 'namespace sandbox', 'cgroups', 'git', 'rg']) assert.equal(byName.get(name)?.ok, true, `${name}: ${byName.get(name)?.detail}`);
});

test('doctor says how to fix a missing bubblewrap', async () => {
  const checks = await sandboxDoctor({ bwrapPath: '/nonexistent/bwrap' });
  const bw = checks.find((c) => c.name === 'bubblewrap');
  assert.equal(bw?.ok, false);
  assert.match(bw?.fix ?? '', /apt-get install -y bubblewrap/);
  assert.equal(checks.find((c) => c.name === 'namespace sandbox'), undefined);
});
