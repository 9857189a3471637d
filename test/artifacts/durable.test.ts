// A receipt that names an artifact is committed only once the artifact is durable under its name:
// the blob's bytes were synced before its rename, but not the folder that took the name (nor a
// folder made for it), which XFS and btrfs do not commit with another file's sync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

void test('traced with strace, the folders that took a preimage artifact are synced after its rename and before the receipt', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-artifact-sync-')));
  try {
    const ws = join(base, 'ws');
    const state = join(base, 'state');
    mkdirSync(ws);
    const child = new URL('./durable-child.ts', import.meta.url).pathname;
    const trace = join(base, 'trace');
    const digest = execFileSync('strace', ['-f', '-qq', '-y', '-o', trace, '-e', 'trace=openat,mkdir,fsync,fdatasync,rename,renameat2', process.execPath, '--import', 'tsx', child, ws, state], { encoding: 'utf8', timeout: 120_000 }).trim();
    const hex = /^sha256:([0-9a-f]{64})$/.exec(digest)?.[1] ?? '';
    assert.notEqual(hex, '', `the child printed the artifact's digest (${digest})`);
    const all = readFileSync(trace, 'utf8').split('\n');
    const lines = all.slice(all.findIndex((l) => l.includes('/dev/null/begin')), all.findIndex((l) => l.includes('/dev/null/end')));
    const folder = join(state, 'artifacts', 'sha256', hex.slice(0, 2));
    // Its line may end in `<unfinished ...>` when another thread's call is printed meanwhile.
    const named = lines.findIndex((l) => /\brename\(/.test(l) && l.includes(`"${join(folder, hex.slice(2))}"`) && !/= -1 /.test(l));
    assert.ok(named > 0, 'the blob was renamed to its digest during the call');
    // The receipt's commit: the last sync of the store's WAL in the call.
    const receipt = lines.findLastIndex((l) => /fdatasync\(\d+<[^>]*toolgate\.db-wal>/.test(l));
    const syncOf = (dir: string): number => lines.findIndex((l, i) => i > named && l.includes(`fsync(`) && l.includes(`<${dir}>`));
    for (const dir of [folder, join(state, 'artifacts', 'sha256')]) {
      const at = syncOf(dir);
      assert.ok(at > named && at < receipt, `${dir} synced after the rename (line ${named}) and before the receipt's commit (line ${receipt}): ${at}`);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
