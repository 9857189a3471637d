// Issue 15: artifacts hosts share. An undo (or a reconcile) on host B reads the pre-image host A
// wrote, so the artifacts must live where both reach: `artifacts: { kind: 'folder', path }`.
// Here both runtimes serve one workspace folder (a shared volume) with their own state dirs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope, tempDirs } from '../support/fixtures.js';
import { createRuntime, type Runtime, type RuntimeOptions, type TaskGrant } from '../../src/runtime/index.js';
import { sqliteStore } from '../../src/store/index.js';

const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write'], read: ['**', '.'], write: ['**', '.'] };

async function twoHosts(artifacts: RuntimeOptions['artifacts'] | ((base: string) => RuntimeOptions['artifacts'])) {
  const d = tempDirs('tg-art');
  writeFileSync(join(d.workspace, 'a.txt'), 'before\n');
  const db = join(d.base, 'db');
  const where = typeof artifacts === 'function' ? artifacts(d.base) : artifacts;
  const open = (name: string): Promise<Runtime> =>
    createRuntime({ workspace: d.workspace, stateDir: join(d.base, `state-${name}`), store: () => sqliteStore()({ stateDir: db }), grant: GRANT, ...(where ? { artifacts: where } : {}) });
  const a = await open('a');
  const b = await open('b');
  return { a, b, d, done: async () => (await Promise.allSettled([a.close(), b.close()]), d.cleanup()) };
}

test('an undo on host B restores the pre-image host A wrote to the shared artifacts folder', async () => {
  const h = await twoHosts((base) => ({ kind: 'folder', path: join(base, 'shared-artifacts') }));
  try {
    const w = await h.a.call(envelope('fs.write', { path: 'a.txt', content: 'after\n', mode: 'create_or_replace' }));
    assert.equal(w.status, 'succeeded');
    const u = await h.b.call(envelope('fs.undo', { receipt_id: w.receipt_id }));
    assert.equal(u.status, 'succeeded', JSON.stringify(u.error));
    assert.equal(readFileSync(join(h.d.workspace, 'a.txt'), 'utf8'), 'before\n');
    // Each host's half-written parts have their own folder, which only that host sweeps.
    const parts = join(h.d.base, 'shared-artifacts', 'tmp');
    assert.ok(existsSync(parts));
    assert.ok(readdirSync(parts).every((n) => !n.endsWith('.part')), 'no part at the top: each host has its own folder');
  } finally {
    await h.done();
  }
});

test('with artifacts in each state dir (the default), host B cannot find A\'s pre-image: the undo fails and the file is left as it is', async () => {
  const h = await twoHosts(undefined);
  try {
    const w = await h.a.call(envelope('fs.write', { path: 'a.txt', content: 'after\n', mode: 'create_or_replace' }));
    assert.equal(w.status, 'succeeded');
    const u = await h.b.call(envelope('fs.undo', { receipt_id: w.receipt_id }));
    assert.equal(u.status, 'failed');
    assert.equal(u.error?.code, 'not_found');
    assert.equal(readFileSync(join(h.d.workspace, 'a.txt'), 'utf8'), 'after\n');
  } finally {
    await h.done();
  }
});

test('a relative artifacts folder is refused at open (usage)', async () => {
  const d = tempDirs('tg-art');
  mkdirSync(d.state, { recursive: true });
  try {
    await assert.rejects(createRuntime({ workspace: d.workspace, stateDir: d.state, artifacts: { kind: 'folder', path: 'relative/dir' } }), (e: { code?: string }) => e.code === 'usage');
  } finally {
    d.cleanup();
  }
});
