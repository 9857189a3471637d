// Issue 10 item 7: thousands of silent sockets against the built `toolgate serve --http` must
// neither block a real call nor take the descriptors the runtime needs. Before the fix, 4,200
// silent sockets against a server with 4,096 descriptors blocked a real call for 87 s (Node's
// 60 s headers timeout, checked every 30 s) and every new connection died with EMFILE meanwhile.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kernelListenDrops, legacyClient, openSilentSockets, ownOpenFileLimit, startServe, type Flood, type ServeChild } from './http-child.js';
import { waitFor } from '../support/processes.js';

/** Generous: the call takes milliseconds on an idle machine; this only catches "blocked". */
const CALL_BOUND_MS = 20_000;

/** A real client connects and calls fs_read; answers how long it took. */
async function timedCall(url: string): Promise<number> {
  const started = Date.now();
  const client = await legacyClient(url);
  try {
    const r = await client.callTool({ name: 'fs_read', arguments: { path: 'a.txt' } }, { timeout: CALL_BOUND_MS });
    assert.equal(r._meta?.['toolgate/status'], 'succeeded');
    assert.equal((r.structuredContent as { content: string }).content, 'hello\n');
  } finally {
    await client.close().catch(() => {});
  }
  return Date.now() - started;
}

/**
 * Every silent socket ends closed by the server, except those the kernel never handed to it
 * (SYN cookies, a full accept queue: see kernelListenDrops); and the server's descriptors come
 * back to what it held before the flood, so it keeps none of them.
 */
async function assertAllReleased(server: ServeChild, run: { flood: Flood; dropsBefore: number }, floodSize: number, baseline: number, boundMs: number): Promise<void> {
  const settled = (): boolean => run.flood.closedByServer() + (kernelListenDrops() - run.dropsBefore) >= floodSize && server.openFds() <= baseline;
  const ok = await waitFor(settled, boundMs);
  const drops = kernelListenDrops() - run.dropsBefore;
  assert.ok(ok, `closed by the server: ${run.flood.closedByServer()}/${floodSize}, kept from it by the kernel: at most ${drops}; server descriptors ${server.openFds()} (before the flood ${baseline})`);
}

/** Floods, samples the server's descriptors as it goes, then makes one real call while the flood is held. */
async function floodThenCall(server: ServeChild, count: number): Promise<{ flood: Flood; peakFds: number; callMs: number; dropsBefore: number }> {
  const dropsBefore = kernelListenDrops();
  let peakFds = server.openFds();
  const sample = (): void => {
    peakFds = Math.max(peakFds, server.openFds());
  };
  const flood = await openSilentSockets(server.port, count, sample);
  sample();
  const callMs = await timedCall(server.url);
  sample();
  return { flood, peakFds, callMs, dropsBefore };
}

describe('serve --http under a flood of silent connections', () => {
  const floodSize = Math.min(3_000, ownOpenFileLimit() - 1_000);

  it('lowered limits: a real call completes, the server holds at most max-connections sockets, silent ones are closed', { timeout: 120_000 }, async (t) => {
    assert.ok(floodSize >= 2_000, `this process may open only ${floodSize} sockets: raise the open-file limit (ulimit -n 4096) to run the flood`);
    const server = await startServe(['--max-connections', '64', '--connection-idle-ms', '1000']);
    let flood: Flood | undefined;
    try {
      assert.match(server.stderr(), /limits: 64 connections \(idle 1000 ms/);
      await timedCall(server.url); // opens the store and everything a call needs, so the baseline counts it
      const baseline = server.openFds();
      const run = await floodThenCall(server, floodSize);
      flood = run.flood;
      t.diagnostic(`${floodSize} silent sockets: call ${run.callMs} ms, server descriptors peak ${run.peakFds}`);
      assert.ok(run.callMs < CALL_BOUND_MS, `call took ${run.callMs} ms`);
      // 64 connections, plus a few for the real client's own connections and the call's files.
      assert.ok(run.peakFds <= baseline + 64 + 16, `server descriptors: baseline ${baseline}, peak ${run.peakFds}`);
      // Every silent socket is closed by the server: evicted at once or after the 1 s idle timeout.
      await assertAllReleased(server, run, floodSize, baseline, 60_000);
      assert.doesNotMatch(server.stderr(), /EMFILE/);
    } finally {
      await flood?.close();
      assert.equal(await server.stop(), 0, server.stderr());
    }
  });

  it('real defaults under a 2,048-descriptor limit: the cap is 1,024, a real call completes, no EMFILE', { timeout: 120_000 }, async (t) => {
    assert.ok(floodSize >= 2_048 + 500, `this process may open only ${floodSize} sockets: raise the open-file limit (ulimit -n 4096) to run the flood`);
    const nofile = 2_048;
    const server = await startServe([], { nofile });
    let flood: Flood | undefined;
    try {
      assert.match(server.stderr(), /limits: 1024 connections \(idle 5000 ms, headers 10000 ms, request 30000 ms, keep-alive 5000 ms\), 64 sessions/);
      await timedCall(server.url);
      const baseline = server.openFds();
      // More silent sockets than the process has descriptors: without a cap, accept hits EMFILE.
      const run = await floodThenCall(server, floodSize);
      flood = run.flood;
      t.diagnostic(`${floodSize} silent sockets: call ${run.callMs} ms, server descriptors peak ${run.peakFds}`);
      assert.ok(run.callMs < CALL_BOUND_MS, `call took ${run.callMs} ms`);
      assert.ok(run.peakFds < nofile - 200, `server descriptors peaked at ${run.peakFds} of ${nofile}`);
      // The default 5 s idle timeout closes the 1,024 silent sockets still held.
      await assertAllReleased(server, run, floodSize, baseline, 60_000);
      assert.doesNotMatch(server.stderr(), /EMFILE/);
    } finally {
      await flood?.close();
      assert.equal(await server.stop(), 0, server.stderr());
    }
  });
});
