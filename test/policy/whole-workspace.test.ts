import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, testRuntime } from '../support/fixtures.js';

test('the resource "." (the whole workspace) is granted by ** and by nothing narrower', async () => {
  const wide = await testRuntime();
  const narrow = await testRuntime({ grant: { tools: ['*'], effects: ['read'], read: ['src/**'] } });
  try {
    for (const { workspace } of [wide, narrow]) writeFileSync(join(workspace, 'n.txt'), 'needle\n');
    const ok = await wide.rt.call(envelope('fs.search', { query: 'needle' }));
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.deepEqual(ok.normalized_action?.resources, [{ kind: 'path', path: '.', access: 'read' }]);
    const refused = await narrow.rt.call(envelope('fs.search', { query: 'needle' }));
    assert.equal(refused.error?.code, 'policy_denied');
    const confined = await narrow.rt.call(envelope('fs.search', { query: 'needle', include: ['src/**'] }));
    assert.equal(confined.status, 'succeeded', JSON.stringify(confined.error));
  } finally {
    await wide.done();
    await narrow.done();
  }
});
