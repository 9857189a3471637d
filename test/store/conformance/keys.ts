// Shared keys (Store.sharedKey): the continuation-token key every runtime of one state signs
// with. A backend without them is skipped (its runtimes keep the key in their state dirs).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ConformanceBackend } from './backend.js';
import { withState } from './fixtures.js';

export function keyCases(backend: ConformanceBackend): void {
  describe('shared keys', () => {
    it('concurrent first requests from several stores agree on one 32-byte key; a later adopt does not replace it', async () => {
      await withState(backend, async ({ open }) => {
        const stores = await Promise.all([open(), open(), open()]);
        const first = stores[0] as (typeof stores)[0];
        if (!first.sharedKey) return; // optional capability
        const keys = await Promise.all(stores.flatMap((s) => [s.sharedKey?.('k1'), s.sharedKey?.('k1', randomBytes(32))]));
        const hex = new Set(keys.map((k) => k?.toString('hex')));
        assert.equal(hex.size, 1, 'every store reads the one key');
        assert.equal(keys[0]?.length, 32);
        assert.notEqual((await first.sharedKey('k2'))?.toString('hex'), keys[0]?.toString('hex'), 'each name its own key');
      });
    });

    it('adopts the offered key when it has none', async () => {
      await withState(backend, async ({ open }) => {
        const s = await open();
        if (!s.sharedKey) return;
        const offered = randomBytes(32);
        assert.deepEqual(await s.sharedKey('adopted', offered), offered);
        assert.deepEqual(await (await open()).sharedKey?.('adopted'), offered);
      });
    });
  });
}
