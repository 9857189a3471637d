// Item 14 of issue 10: a full or read-only state dir made call() throw a raw SqliteError, and an
// fs.write changed the workspace with no receipt. Real failures: the state dir is a tiny tmpfs,
// filled to ENOSPC, or remounted read-only at the point after the effect and before the receipt.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeSync, closeSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime, type Runtime } from '../../src/runtime/index.js';
import { ToolgateError } from '../../src/protocol/index.js';

function mountTmpfs(dir: string, size: string): boolean {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]).status === 0;
}

const CAN_MOUNT = ((): boolean => {
  const d = tempDirs('tg-mnt');
  try {
    const ok = mountTmpfs(join(d.base, 'm'), '64k');
    if (ok) execFileSync('umount', [join(d.base, 'm')]);
    return ok;
  } finally {
    d.cleanup();
  }
})();

/** Writes zeros until the file system says ENOSPC. */
function fill(dir: string): string {
  const path = join(dir, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(4096);
  try {
    for (let i = 0; i < 1_000_000; i++) writeSync(fd, chunk);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  return path;
}

async function callOutcome(rt: Runtime, env: Record<string, unknown>): Promise<{ code: string; typed: boolean; status?: string }> {
  try {
    const r = await rt.call(env);
    return { code: r.error?.code ?? 'none', typed: true, status: r.status };
  } catch (e) {
    return { code: ToolgateError.isInstance(e) ? e.code : `raw ${(e as Error).name}: ${(e as Error).message}`, typed: ToolgateError.isInstance(e) };
  }
}

test('a full state dir: store_unavailable, typed, and no effect happens without its durable intent row', { skip: !CAN_MOUNT && 'needs root to mount a tmpfs' }, async () => {
  const d = tempDirs('tg-full');
  const state = join(d.base, 'state');
  assert.ok(mountTmpfs(state, '1m'));
  try {
    const rt = await createRuntime({ workspace: d.workspace, stateDir: state });
    try {
      const filler = fill(state);
      const outcomes = [];
      for (let i = 0; i < 5; i++) outcomes.push(await callOutcome(rt, envelope('fs.write', { path: `f${i}.txt`, content: 'payload' })));
      const written = outcomes.map((_, i) => existsSync(join(d.workspace, `f${i}.txt`)));
      assert.deepEqual(outcomes.map((o) => o.code), Array(5).fill('store_unavailable'), JSON.stringify(outcomes));
      assert.deepEqual(written, Array(5).fill(false), 'no file written without its intent row');
      // Space again: the same runtime works, nothing was left half-done.
      unlinkSync(filler);
      const ok = await rt.call(envelope('fs.write', { path: 'after.txt', content: 'ok' }));
      assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
      assert.deepEqual(await rt.listUnsettled(), []);
    } finally {
      await rt.close();
    }
  } finally {
    execFileSync('umount', ['-l', state]);
    d.cleanup();
  }
});

test('a state dir that fills up after the effect, before the receipt: store_unavailable, the record stays sent, and the retry recovers the receipt', { skip: !CAN_MOUNT && 'needs root to mount a tmpfs' }, async () => {
  const d = tempDirs('tg-late-full');
  const state = join(d.base, 'state');
  assert.ok(mountTmpfs(state, '8m'));
  try {
    const rt = await createRuntime({ workspace: d.workspace, stateDir: state });
    let filler: string | null = null;
    try {
      // The disk fills at the first store write after the file was renamed into place.
      const store = rt.store as unknown as { advanceRevision: () => Promise<number> };
      const advance = store.advanceRevision.bind(rt.store);
      store.advanceRevision = () => {
        filler = fill(state);
        return advance();
      };
      const env = envelope('fs.write', { path: 'w.txt', content: 'written' }, { idempotency_key: 'late-1' });
      const first = await callOutcome(rt, env);
      assert.equal(first.code, 'store_unavailable', JSON.stringify(first));
      assert.equal(readFileSync(join(d.workspace, 'w.txt'), 'utf8'), 'written', 'the effect happened');
      store.advanceRevision = advance;
      unlinkSync(filler as unknown as string);
      filler = null;
      assert.deepEqual((await rt.listUnsettled()).map((e) => [e.effect_key, e.state, e.owner_alive]), [['k:late-1', 'sent', false]], 'reconcile finds it');
      const retry = await rt.call(env);
      assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
      assert.equal((retry.evidence['reconciliation'] as { settled: string }).settled, 'completed');
      assert.deepEqual(await rt.listUnsettled(), []);
      assert.equal((await rt.store.verifyChain()).ok, true);
    } finally {
      if (filler !== null) unlinkSync(filler);
      await rt.close();
    }
  } finally {
    execFileSync('umount', ['-l', state]);
    d.cleanup();
  }
});

test('a read-only state dir: opening the runtime is store_unavailable (typed), not a raw SqliteError', { skip: !CAN_MOUNT && 'needs root to mount a tmpfs' }, async () => {
  const d = tempDirs('tg-ro');
  const state = join(d.base, 'state');
  assert.ok(mountTmpfs(state, '8m'));
  try {
    const first = await createRuntime({ workspace: d.workspace, stateDir: state });
    assert.equal((await first.call(envelope('fs.write', { path: 'a.txt', content: 'a' }))).status, 'succeeded');
    await first.close();
    execFileSync('mount', ['-o', 'remount,ro', state]);
    let code = 'opened';
    try {
      await (await createRuntime({ workspace: d.workspace, stateDir: state })).close();
    } catch (e) {
      code = ToolgateError.isInstance(e) ? e.code : `raw ${(e as Error).name}`;
    }
    assert.equal(code, 'store_unavailable');
  } finally {
    spawnSync('mount', ['-o', 'remount,rw', state]);
    execFileSync('umount', ['-l', state]);
    d.cleanup();
  }
});
