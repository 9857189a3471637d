// The agent needs no outside help: shell.exec (in the real bwrap sandbox) runs a renameat2 loop
// that exchanges a workspace directory with a link to the runtime's state dir, while the agent's
// own fs.search calls run concurrently. No search may return a row of the state dir (its
// toolgate.db holds the receipts: "SQLite format 3" is its first bytes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRuntime } from '../../../src/runtime/index.js';
import { PROTOCOL_VERSION, type Receipt } from '../../../src/protocol/index.js';

const SEARCHES = 300;
const SWAP_SECONDS = 90;
const STATE_MARK = 'SQLite format 3';

/** Runs inside the sandbox: exchanges dir and parked until `stop` appears or its time is up. */
const SWAPPER = String.raw`
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + float(sys.argv[1])
n = 0
while True:
    if libc.renameat2(-100, b'dir', -100, b'parked', 2) != 0:
        sys.exit('renameat2: errno %d' % ctypes.get_errno())
    n += 1
    if n % 1024 == 0 and (os.path.exists('stop') or time.time() > end):
        break
print(n)
`;

test(`shell.exec swapping a directory for a link to the state dir while fs.search runs: ${SEARCHES} searches, 0 rows of the state dir`, async () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'fs-search-shell-swap-')));
  const workspace = join(base, 'ws');
  const state = join(base, 'state');
  mkdirSync(workspace);
  const rt = await createRuntime({ workspace, stateDir: state, grant: { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**', '.'], write: ['**'] } });
  const call = (tool: string, args: Record<string, unknown>, task = 'agent'): Promise<Receipt> =>
    rt.call({ protocol_version: PROTOCOL_VERSION, task_id: task, tool, arguments: args });
  let escapes = 0;
  let searches = 0;
  let decoySeen = 0;
  let shell: Promise<Receipt> | null = null;
  try {
    // Some receipts, so that the state dir's database holds rows.
    const setup = await call('shell.exec', {
      shell: 'sh',
      script: `mkdir dir && printf 'decoy\\n' > dir/toolgate.db && ln -s ${JSON.stringify(state)} parked && printf 'x\\n' > top.txt`,
    });
    assert.equal(setup.status, 'succeeded', JSON.stringify(setup.error));
    shell = call('shell.exec', { argv: ['python3', '-c', SWAPPER, String(SWAP_SECONDS)], timeout_ms: (SWAP_SECONDS + 60) * 1000 }, 'swapper');
    await sleep(500);
    const started = Date.now();
    const worker = async (): Promise<void> => {
      while (searches < SEARCHES && Date.now() - started < (SWAP_SECONDS - 10) * 1000) {
        searches++;
        const r = await call('fs.search', { query: searches % 2 ? STATE_MARK : 'decoy', include_ignored: true, include_generated: true });
        const text = JSON.stringify(r.result ?? null);
        if (text.includes(STATE_MARK) || text.includes('receipts')) escapes++;
        if (text.includes('dir/toolgate.db')) decoySeen++;
      }
    };
    await Promise.all([worker(), worker()]);
  } finally {
    if (existsSync(workspace)) writeFileSync(join(workspace, 'stop'), '');
    const swapped = shell ? await shell : null;
    console.log(`shell swap: ${searches} searches, escapes ${escapes}, decoy seen ${decoySeen}, swapper ${swapped?.status} ${JSON.stringify((swapped?.result as { stdout?: { preview?: string } } | null)?.stdout?.preview ?? swapped?.error)}`);
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
  assert.equal(escapes, 0);
  assert.ok(decoySeen > 0, 'some searches read the inside file: the directory was really there at times');
});
