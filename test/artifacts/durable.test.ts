// A receipt that names an artifact is committed only once the artifact is durable under its name:
// the blob's bytes were synced before its rename, but not the folder that took the name (nor a
// folder made for it), which XFS and btrfs do not commit with another file's sync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactStore } from '../../src/artifacts/index.js';
import { testRuntime } from '../support/fixtures.js';
import { endedAt, withTracedChild } from '../support/strace.js';

void test('traced with strace, the folders that took a preimage artifact are synced after its rename and before the receipt', () =>
  withTracedChild('tg-artifact-sync', new URL('./durable-child.ts', import.meta.url).pathname, ['-e', 'trace=openat,mkdir,fsync,fdatasync,rename,renameat2'], (t, { state }) => {
    const digest = t.stdout.trim();
    const hex = /^sha256:([0-9a-f]{64})$/.exec(digest)?.[1] ?? '';
    assert.notEqual(hex, '', `the child printed the artifact's digest (${digest})`);
    const lines = t.between('begin', 'end');
    const folder = join(state, 'artifacts', 'sha256', hex.slice(0, 2));
    // Its line may end in `<unfinished ...>` when another thread's call is printed meanwhile.
    const named = lines.findIndex((l) => /\brename\(/.test(l) && l.includes(`"${join(folder, hex.slice(2))}"`) && !/= -1 /.test(l));
    assert.ok(named > 0, 'the blob was renamed to its digest during the call');
    // The receipt's commit: the last sync of the store's WAL in the call.
    const receipt = lines.findLastIndex((l) => /fdatasync\(\d+<[^>]*toolgate\.db-wal>/.test(l));
    const syncOf = (dir: string): number => lines.findIndex((l, i) => i > named && l.includes(`fsync(`) && l.includes(`<${dir}>`));
    for (const dir of [folder, join(state, 'artifacts', 'sha256')]) {
      const at = syncOf(dir);
      assert.ok(at > named && endedAt(lines, at) < receipt, `${dir} synced after the rename (line ${named}) and before the receipt's commit (line ${receipt}): ${at}`);
    }
  }));

void test('the commit stage waits for the artifact folders\' syncs before it commits a receipt that names an artifact', async () => {
  const t = await testRuntime();
  const durable = Object.getOwnPropertyDescriptor(ArtifactStore.prototype, 'durable')?.value as ArtifactStore['durable'];
  const events: string[] = [];
  try {
    // The syncs made slower than anything else in the call: a commit that did not wait comes first.
    ArtifactStore.prototype.durable = async function (this: ArtifactStore): Promise<void> {
      await durable.call(this);
      await new Promise((resolve) => setTimeout(resolve, 100));
      events.push('folders synced');
    };
    const commit = t.rt.store.commit.bind(t.rt.store);
    t.rt.store.commit = (req) => {
      events.push('receipt committed');
      return commit(req);
    };
    writeFileSync(join(t.workspace, 'a.txt'), 'old\n');
    const r = await t.rt.call({ protocol_version: 'tool-call.v1', task_id: 't', tool: 'fs.patch', arguments: { files: [{ path: 'a.txt', edits: [{ old: 'old', new: 'new' }] }] } });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(r.artifacts.length, 1);
    assert.deepEqual(events.slice(-2), ['folders synced', 'receipt committed']);
  } finally {
    ArtifactStore.prototype.durable = durable;
    await t.done();
  }
});
