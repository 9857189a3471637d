// A restart between send and receipt: the runtime process is killed while the provider holds its
// answer (the effect taken, markSent durable, no receipt). The retry after a restart reconciles
// by the declared query and finds the effect: exactly one at the provider, never a second POST.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { tempDirs, envelope } from '../../support/fixtures.js';
import { alive, waitFor } from '../../support/processes.js';
import { Provider } from './provider.js';
import { httpRuntime, PROVIDER_ADDRESS, SECRET, SECRET_ENV } from './harness.js';

const CHILD = join(import.meta.dirname, 'crash-child.ts');

describe('http.request across a crash', () => {
  let provider: Provider;
  const children: ChildProcess[] = [];
  const dirs = tempDirs('tg-http-crash');

  before(async () => {
    provider = await Provider.start(PROVIDER_ADDRESS);
  });
  after(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await provider.close();
    dirs.cleanup();
  });

  for (const [i, outcome] of [
    [1, 'completed'],
    [2, 'released'],
  ] as const) {
    it(`killed after markSent, the provider ${outcome === 'completed' ? 'having' : 'not having'} kept the effect: the retry reconciles (${outcome}), one effect in all`, async () => {
      provider.behaviour = 'hold';
      const key = `crash-${i}`;
      const url = `http://${PROVIDER_ADDRESS}:${provider.port}/items`;
      const written = provider.nextWrite();
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dirs.workspace, dirs.state, url, key], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, [SECRET_ENV]: SECRET } });
      children.push(child);
      let timer: NodeJS.Timeout | undefined;
      const seen = await Promise.race([written, new Promise<null>((r) => (timer = setTimeout(() => r(null), 60_000)))]).finally(() => clearTimeout(timer));
      assert.ok(seen, 'the provider saw the POST within 60 s');
      child.kill('SIGKILL');
      assert.ok(await waitFor(() => child.pid === undefined || !alive(child.pid), 10_000), 'the runtime process is gone');
      const writes = provider.writes;
      if (outcome === 'released') provider.effects.delete(String(seen.headers['idempotency-key']));
      provider.behaviour = 'answer';

      const h = await httpRuntime({}, { ...dirs, cleanup: () => {} });
      try {
        const env = envelope('http.request', { method: 'POST', url, body: 'once' }, { task_id: 'task-crash', idempotency_key: key });
        const r = await h.rt.call(env);
        assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
        if (outcome === 'completed') {
          assert.equal(provider.writes, writes, 'the retry sent nothing: reconcile found the effect');
          assert.equal((r.evidence as { reconciliation?: { settled: string } }).reconciliation?.settled, 'completed');
          assert.equal((r.evidence as { reconcile?: { status: number } }).reconcile?.status, 200);
        } else {
          assert.equal(provider.writes, writes + 1, 'not sent → sent once by the retry');
          assert.equal(provider.requests.at(-1)?.headers['idempotency-key'], seen.headers['idempotency-key'], 'with the same key');
        }
        assert.equal(provider.effects.has(String(seen.headers['idempotency-key'])), true);
        const again = await h.rt.call(env);
        assert.equal(again.replay, true);
        assert.equal(provider.writes, outcome === 'completed' ? writes : writes + 1);
      } finally {
        await h.rt.close();
      }
    });
  }
});
