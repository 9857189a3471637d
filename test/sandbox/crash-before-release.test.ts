// A runtime killed between the intent's durable write and the release of its command (the
// failpoint after_intent of shell.exec): the command must never start, and what waits of the
// sandbox goes with the next runtime's cgroup sweep. bubblewrap took the end-of-file of its block
// fd, which the dead runtime's end gave, for the go: the command then ran unsupervised (the
// PostgreSQL failpoint matrix saw a torn shell.exec). See src/sandbox/block-fd.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Sandbox } from '../../src/sandbox/index.js';
import { detectCgroups } from '../../src/sandbox/cgroups.js';
import { processStat } from '../../src/sandbox/process-table.js';
import { newMarker, processesWithMarker, tempWorkspace, waitFor } from './fixtures.js';

const probe = new Sandbox({ workspace: '/tmp', spare: false }).host;
const skip = probe.bwrap === null ? 'no bubblewrap' : probe.cgroups.bases.pids === undefined ? 'no writable pids cgroup' : false;

for (const mode of ['fresh', 'spare'] as const) {
  test(`a runtime killed before the release: the command never starts, and the next runtime's sweep ends the waiting sandbox (${mode} wrapper)`, { skip }, async () => {
    const ws = tempWorkspace();
    const marker = newMarker();
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./held-in-child.ts', import.meta.url)), ws.dir, marker, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await waitFor(() => out.includes('\n'), 60_000, 'the child to report its held init');
      const init = Number(out.trim());
      const start = processStat(init)?.start;
      assert.ok(start !== undefined, `a live init: ${out}`);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      // Were end-of-file the go, the command would now run: bubblewrap's setup is done, so it
      // would start within milliseconds. Two seconds, then it must not have. (The init may be
      // gone by then: any runtime that starts meanwhile, another test file's, sweeps the groups.)
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(existsSync(join(ws.dir, `ran-${marker}`)), false, 'the command did not start');
      detectCgroups(); // what the next runtime does first
      await waitFor(() => processesWithMarker(marker).length === 0, 5_000, 'the sweep to end the sandbox');
      assert.equal(existsSync(join(ws.dir, `ran-${marker}`)), false, 'the command never started');
    } finally {
      child.kill('SIGKILL');
      for (const pid of processesWithMarker(marker)) process.kill(pid, 'SIGKILL');
      ws.remove();
    }
  });
}
