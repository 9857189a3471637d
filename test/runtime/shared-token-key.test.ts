// Issue 15: a continuation token minted by one runtime must verify on another runtime of the
// same store (a retry or the next page lands on another host). The key lives in the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime, HmacTokenCodec, type Runtime } from '../../src/runtime/index.js';
import { sqliteStore, type StoreFactory } from '../../src/store/index.js';
import type { TaskId } from '../../src/protocol/index.js';

interface FsReadPage {
  readonly continuation: string | null;
}

/** One SQLite file in `dir`, whatever state dir the runtime has: two runtimes, one store. */
const storeIn = (dir: string): StoreFactory => () => sqliteStore()({ stateDir: dir });

function lines(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i}\n`).join('');
}

async function twoHosts(prepare?: (stateA: string) => void): Promise<{ a: Runtime; b: Runtime; done: () => Promise<void> }> {
  const d = tempDirs('tg-key');
  const wsA = join(d.base, 'ws-a');
  const wsB = join(d.base, 'ws-b');
  const stateA = join(d.base, 'state-a');
  for (const ws of [wsA, wsB]) {
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(ws, 'big.txt'), lines(5000));
  }
  mkdirSync(stateA, { recursive: true });
  prepare?.(stateA);
  const shared = storeIn(join(d.base, 'db'));
  const a = await createRuntime({ workspace: wsA, stateDir: stateA, store: shared });
  const b = await createRuntime({ workspace: wsB, stateDir: join(d.base, 'state-b'), store: shared });
  return {
    a,
    b,
    done: async () => {
      await Promise.allSettled([a.close(), b.close()]);
      d.cleanup();
    },
  };
}

test('a continuation token minted by runtime A reads on in runtime B of the same store; a tampered one is refused', async () => {
  const { a, b, done } = await twoHosts();
  try {
    const first = await a.call(envelope('fs.read', { path: 'big.txt' }));
    assert.equal(first.status, 'succeeded');
    const token = (first.result as FsReadPage).continuation;
    assert.ok(token, 'the first page is truncated');
    const next = await b.call(envelope('fs.read', { path: 'big.txt', continuation: token }));
    assert.equal(next.status, 'succeeded', JSON.stringify(next.error));
    const [v, body, mac] = token.split('.') as [string, string, string];
    const flipped = `${v}.${body}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    const bad = await b.call(envelope('fs.read', { path: 'big.txt', continuation: flipped }));
    assert.equal(bad.error?.code, 'invalid_continuation');
  } finally {
    await done();
  }
});

test('an older state dir\'s continuation.key is adopted by a store that has no key yet: its tokens stay valid', async () => {
  const legacy = randomBytes(32);
  const { a, b, done } = await twoHosts((stateA) => writeFileSync(join(stateA, 'continuation.key'), legacy, { mode: 0o600 }));
  try {
    assert.deepEqual(await a.store.sharedKey?.('continuation'), legacy);
    // A token the old runtime signed with its state dir's key, before the upgrade.
    const old = await a.call(envelope('fs.read', { path: 'big.txt' }));
    const token = (old.result as FsReadPage).continuation as string;
    const signedByLegacy = new HmacTokenCodec(legacy, 'task-1' as TaskId);
    assert.doesNotThrow(() => signedByLegacy.verify('fs.read', token));
    assert.equal((await b.call(envelope('fs.read', { path: 'big.txt', continuation: token }))).status, 'succeeded');
  } finally {
    await done();
  }
});
