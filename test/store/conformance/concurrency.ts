// Many claimants of one logical effect, in one process and in several: exactly one gets `new`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClaimResult } from '../../../src/store/index.js';
import type { ConformanceBackend } from './backend.js';
import { claimOf, freshTask, withState } from './fixtures.js';
import { storeProcess, type StoreProcess } from './processes.js';

const ONLY_LOSERS = new Set<ClaimResult['kind']>(['in_progress']);

export function concurrencyCases(backend: ConformanceBackend): void {
  describe('concurrency', () => {
    it('50 concurrent claims of one key from 5 store instances: exactly one new, every other in progress', async () => {
      await withState(backend, async ({ open }) => {
        const stores = await Promise.all(Array.from({ length: 5 }, () => open()));
        const req = claimOf(freshTask(), 'one');
        const kinds = (await Promise.all(stores.flatMap((s) => Array.from({ length: 10 }, () => s.claim(req))))).map((r) => r.kind);
        assert.equal(kinds.filter((k) => k === 'new').length, 1, JSON.stringify(kinds));
        assert.ok(kinds.filter((k) => k !== 'new').every((k) => ONLY_LOSERS.has(k)), JSON.stringify(kinds));
      });
    });

    it('claims of one key from 4 processes at once: exactly one new across all of them', async () => {
      await withState(backend, async ({ ref }) => {
        const req = claimOf(freshTask(), 'across-processes');
        const procs: StoreProcess[] = Array.from({ length: 4 }, () => storeProcess(backend.module, ref, 'claim', 8, req));
        try {
          for (const p of procs) assert.equal(await p.line(), 'READY');
          for (const p of procs) p.child.stdin?.write('GO\n');
          const kinds = (await Promise.all(procs.map(async (p) => JSON.parse(await p.line()) as string[]))).flat();
          assert.equal(kinds.length, 32);
          assert.equal(kinds.filter((k) => k === 'new').length, 1, JSON.stringify(kinds));
          assert.ok(kinds.filter((k) => k !== 'new').every((k) => k === 'in_progress'), JSON.stringify(kinds));
        } finally {
          // Only after every result is in do the owners exit (a gone owner's claim is free again).
          await Promise.all(procs.map((p) => p.end()));
        }
      });
    });

    it('concurrent reservations from two store instances never pass a budget', async () => {
      await withState(backend, async ({ open }) => {
        const a = await open();
        const b = await open();
        const task = freshTask();
        const limits = { calls: 5, bytes_read: null, bytes_written: null, cpu_ms: null, wall_ms: null, cost: null, calls_per_minute: null };
        const now = Date.now();
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).budgets.reserve({ id: `c${i}`, task_id: task, limits, amounts: { calls: 1 }, now, expires_at: now + 60_000 })),
        );
        assert.equal(results.filter((r) => r.ok).length, 5);
        assert.deepEqual((await a.budgets.usage(task)).calls, { used: 0, reserved: 5 });
      });
    });
  });
}
