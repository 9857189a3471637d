// A restart between send and receipt: the runtime process is SIGKILLed while the daemon holds
// the push (markSent durable, no receipt). The retry after the restart takes the record over,
// reconciles with ls-remote, and never pushes blindly: exactly one push lands in each case.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createRuntime } from '../../../src/runtime/index.js';
import { envelope, tempDirs } from '../../support/fixtures.js';
import { alive, waitFor } from '../../support/processes.js';
import { GitDaemonServer } from './git-server.js';
import { DAEMON_ADDRESS, grant, initWorkspace, POLICY } from './harness.js';

const CHILD = join(import.meta.dirname, 'crash-child.ts');

describe('git.push across a crash', () => {
  let server: GitDaemonServer;
  const children: ChildProcess[] = [];

  before(async () => {
    server = await GitDaemonServer.start(DAEMON_ADDRESS);
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await server.close();
  });

  for (const [i, behaviour, outcome] of [
    [1, 'hold', 'completed'],
    [2, 'swallow_pack', 'released'],
  ] as const) {
    it(`killed after markSent, the push ${outcome === 'completed' ? 'landed' : 'lost'}: the retry reconciles (${outcome}), one push in all`, async () => {
      const dirs = tempDirs('tg-git-crash');
      const { c3 } = initWorkspace(dirs.workspace);
      const name = `crash${i}`;
      server.createRepository(name);
      const url = `git://${DAEMON_ADDRESS}:${server.port}/${name}.git`;
      const key = `crash-${i}`;
      server.behaviour = behaviour;
      const delivered = server.packsDelivered;
      const pack = server.nextPack();
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dirs.workspace, dirs.state, url, key], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      let timer: NodeJS.Timeout | undefined;
      const seen = await Promise.race([pack.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 60_000)))]).finally(() => clearTimeout(timer));
      assert.ok(seen, 'the daemon saw the pack within 60 s');
      // The held push finishes at the daemon (the ref moves) whatever happens to the client.
      if (behaviour === 'hold') assert.ok(await waitFor(() => server.refOf(name, 'refs/heads/main') === c3, 20_000), 'the daemon updated the ref');
      child.kill('SIGKILL');
      assert.ok(await waitFor(() => child.pid === undefined || !alive(child.pid), 10_000), 'the runtime process is gone');
      server.behaviour = 'pass';
      server.release();
      const afterCrash = server.packsDelivered;
      assert.equal(afterCrash, delivered + (behaviour === 'hold' ? 1 : 0));

      const rt = await createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, grant: grant() as never, policies: [{ name: 'git.cedar', text: POLICY }] });
      try {
        const env = envelope('git.push', { remote: url, ref: 'main' }, { task_id: 'task-crash', idempotency_key: key });
        const r = await rt.call(env);
        assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
        if (outcome === 'completed') {
          assert.equal(server.packsDelivered, afterCrash, 'the retry pushed nothing: reconcile found our commit');
          assert.equal((r.evidence as { reconciliation?: { settled: string } }).reconciliation?.settled, 'completed');
        } else {
          assert.equal(server.packsDelivered, afterCrash + 1, 'not landed → pushed once by the retry');
        }
        assert.equal(server.refOf(name, 'refs/heads/main'), c3);
        const again = await rt.call(env);
        assert.equal(again.replay, true);
        assert.equal(server.packsDelivered, delivered + 1, 'one push delivered in all');
        assert.equal(server.refMoves(name, 'refs/heads/main'), 1, 'one effect in all');
      } finally {
        await rt.close();
        dirs.cleanup();
      }
    });
  }
});
