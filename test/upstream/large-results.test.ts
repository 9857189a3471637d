// A stdio upstream's result larger than the SDK transport's default buffer (10 MB) reaches the
// runtime, which keeps it as an artifact, instead of closing the connection: with the default
// buffer the call failed as a crash (upstream_unavailable) and the upstream was restarted, its
// state lost.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openHarness } from './support.js';

describe('a large result from a stdio upstream', () => {
  it('over 10 MB: succeeded, the result kept as an artifact; no crash, no restart; the next call is served', async () => {
    const h = await openHarness({ unmanifested: 'approve' });
    try {
      const first = await h.approved('t-big', 'issues.big', { bytes: 1000 });
      assert.equal(first.status, 'succeeded', JSON.stringify(first.error));
      const pid = h.rt.gateway?.status()[0]?.pid;
      const big = await h.approved('t-big', 'issues.big', { bytes: 11 * 1024 * 1024 });
      assert.equal(big.status, 'succeeded', JSON.stringify(big.error));
      const artifact = big.artifacts.find((a) => a.role === 'result');
      assert.ok(artifact && artifact.bytes > 11 * 1024 * 1024, JSON.stringify(big.artifacts));
      assert.deepEqual({ ...(big.result as Record<string, unknown>), artifact: 'a' }, { artifact: 'a', bytes: artifact.bytes, inline: false });
      assert.equal(h.starts(), 1, 'the upstream was not restarted');
      assert.equal(h.rt.gateway?.status()[0]?.pid, pid);
      const again = await h.approved('t-big', 'issues.big', { bytes: 10 });
      assert.equal(again.status, 'succeeded', JSON.stringify(again.error));
    } finally {
      await h.done();
    }
  });
});
