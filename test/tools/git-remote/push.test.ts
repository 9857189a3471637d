// git.push through a real git daemon on 127.0.0.2: the push lands once, refs outside the grant
// and odd refs send nothing, and each way a push can lose its answer ends ambiguous and is
// settled by ls-remote, with exactly one effect at the remote.
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelope } from '../../support/fixtures.js';
import { waitFor } from '../../support/processes.js';
import { GitDaemonServer } from './git-server.js';
import { DAEMON_ADDRESS, git, grant, gitRuntime, orphanedGitProcesses, type GitRuntime } from './harness.js';

/** Pids of `git push` processes whose argv names `url` (the dial URL is unique per test repository). */
function pushProcesses(url: string): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const argv = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
      if (argv[0] === 'git' && argv.includes('push') && argv.includes(url)) out.push(Number(e));
    } catch {
      // gone
    }
  }
  return out;
}

describe('git.push over git://', () => {
  let server: GitDaemonServer;
  let h: GitRuntime;
  let url: string;
  let n = 0;
  /** A fresh repository at the server for one test: its URL and name. */
  const repo = () => {
    const name = `r${++n}`;
    server.createRepository(name);
    return { name, url: `git://${DAEMON_ADDRESS}:${server.port}/${name}.git` };
  };

  before(async () => {
    server = await GitDaemonServer.start(DAEMON_ADDRESS);
    url = `git://${DAEMON_ADDRESS}:${server.port}`;
    h = await gitRuntime({ config: { remotes: [{ name: 'origin', url: `${url}/named.git` }] } });
  });
  after(async () => {
    await h.done();
    await server.close();
  });

  it('pushes a commit to a granted ref once: created, then fast-forwarded; the receipt names URL, address, ref, old and new, the answer', async () => {
    const r = repo();
    const first = await h.rt.call(envelope('git.push', { remote: r.url, ref: 'main', revision: h.commits.c2 }, { idempotency_key: 'land-1' }));
    assert.equal(first.status, 'succeeded', JSON.stringify(first.error));
    const res = first.result as Record<string, unknown>;
    assert.equal(res.outcome, 'created');
    assert.equal(res.old, null);
    assert.equal(res.new, h.commits.c2);
    assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c2);
    const second = await h.rt.call(envelope('git.push', { remote: r.url, ref: 'refs/heads/main' }, { idempotency_key: 'land-2' }));
    assert.equal(second.status, 'succeeded', JSON.stringify(second.error));
    assert.deepEqual({ ...(second.result as Record<string, unknown>), destination: undefined }, {
      remote: r.url,
      url: r.url,
      ref: 'refs/heads/main',
      old: h.commits.c2,
      new: h.commits.c3,
      forced: false,
      outcome: 'updated',
      answer: { ref: 'refs/heads/main', flag: ' ', summary: `${h.commits.c2.slice(0, 7)}..${h.commits.c3.slice(0, 7)}` },
      destination: undefined,
    });
    const ev = second.evidence as { destination: { url: string; address: string; port: number } };
    assert.equal(ev.destination.address, DAEMON_ADDRESS);
    assert.equal(ev.destination.url, r.url);
    assert.equal(second.normalized_action?.effect_class, 'publish');
    assert.deepEqual(
      second.normalized_action?.resources.map((x) => x.kind),
      ['host', 'ref'],
    );
    const packs = server.packsDelivered;
    const replay = await h.rt.call(envelope('git.push', { remote: r.url, ref: 'refs/heads/main' }, { idempotency_key: 'land-2' }));
    assert.equal(replay.replay, true);
    assert.equal(server.packsDelivered, packs, 'a replay pushes nothing');
    assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c3);
    assert.equal(server.refMoves(r.name, 'refs/heads/main'), 2, 'created, then fast-forwarded');
  });

  it('a remote named in connectors.git is reached by its name; an unknown name is connector_not_configured', async () => {
    server.createRepository('named');
    const ok = await h.rt.call(envelope('git.push', { remote: 'origin', ref: 'main' }));
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.equal(server.refOf('named', 'refs/heads/main'), h.commits.c3);
    const unknown = await h.rt.call(envelope('git.push', { remote: 'upstream', ref: 'main' }));
    assert.equal(unknown.error?.code, 'connector_not_configured');
    assert.equal((unknown.error?.data as { reason: string }).reason, 'unknown_remote');
  });

  it('a ref outside the grant is denied before any connection', async () => {
    const r = repo();
    const before = server.connections;
    for (const ref of ['other', 'refs/heads/feature', 'refs/tags/v1', 'refs/heads/mainx']) {
      const x = await h.rt.call(envelope('git.push', { remote: r.url, ref }));
      assert.equal(x.status, 'denied', ref);
      assert.equal(x.error?.code, 'policy_denied', ref);
    }
    assert.equal(server.connections, before, 'nothing reached the server');
    assert.equal(server.refOf(r.name, 'refs/heads/other'), null);
  });

  it('odd refs are refused at normalize (check-ref-format rules, symbolic names, wildcards), nothing sent', async () => {
    const r = repo();
    const before = server.connections;
    const odd = ['HEAD', '@', 'refs/heads/../main', 'main@{1}', 'refs/heads/ma\u0001in', 'refs/heads/*', 'refs/heads/feature/[ab]', 'feature/x.lock', 'refs/heads/.hidden', 'refs/heads//main', '/main', 'main.', 'ma in', 'ma~1', 'ma^', 'a:b', 'a\\b', 'refs/main', 'refs/heads/mаin', 'FETCH_HEAD'];
    for (const ref of odd) {
      const x = await h.rt.call(envelope('git.push', { remote: r.url, ref }));
      assert.equal(x.error?.code, 'invalid_resource', `${JSON.stringify(ref)}: ${JSON.stringify(x.error)}`);
      assert.equal((x.error?.data as { kind: string }).kind, 'ref');
    }
    assert.equal(server.connections, before);
  });

  it('a revision that names no commit is refused before any connection', async () => {
    const r = repo();
    const before = server.connections;
    const x = await h.rt.call(envelope('git.push', { remote: r.url, ref: 'main', revision: '--upload-pack=touch /tmp/tg-pwned' }));
    assert.equal(x.error?.code, 'invalid_resource');
    assert.equal(server.connections, before);
  });

  it('a push that is not a fast-forward is refused with nothing sent; force is refused unless configured', async () => {
    const r = repo();
    assert.equal((await h.rt.call(envelope('git.push', { remote: r.url, ref: 'main' }))).status, 'succeeded');
    const packs = server.packsReceived;
    const back = await h.rt.call(envelope('git.push', { remote: r.url, ref: 'main', revision: h.commits.c1 }));
    assert.equal(back.status, 'failed');
    assert.equal((back.error?.data as { reason: string }).reason, 'not_fast_forward');
    const forced = await h.rt.call(envelope('git.push', { remote: r.url, ref: 'main', revision: h.commits.c1, force: true }));
    assert.equal(forced.error?.code, 'connector_not_configured');
    assert.equal((forced.error?.data as { reason: string }).reason, 'force_not_allowed');
    assert.equal(server.packsReceived, packs);
    assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c3);
  });

  it('force where the remote allows it is the delete class: refused by a grant without delete, a forced swap from the value read with one', async () => {
    const r = repo();
    assert.equal((await h.rt.call(envelope('git.push', { remote: r.url, ref: 'main' }))).status, 'succeeded');
    // Force is a per-remote setting: the server's own receive.denyNonFastForwards is off for this test.
    git(server.root, '-C', `${r.name}.git`, 'config', 'receive.denyNonFastForwards', 'false');
    const config = { remotes: [{ url: `git://${DAEMON_ADDRESS}:${server.port}/**`, allow_force: true }] };
    const plain = await gitRuntime({ config });
    const withDelete = await gitRuntime({ config, grant: { ...grant(), effects: ['read', 'network', 'publish', 'delete'] } });
    try {
      const denied = await plain.rt.call(envelope('git.push', { remote: r.url, ref: 'main', revision: plain.commits.c1, force: true }));
      assert.equal(denied.error?.code, 'policy_denied');
      assert.equal(denied.normalized_action?.effect_class, 'delete');
      assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c3);
      const forced = await withDelete.rt.call(envelope('git.push', { remote: r.url, ref: 'main', revision: withDelete.commits.c1, force: true }));
      assert.equal(forced.status, 'succeeded', JSON.stringify(forced.error));
      assert.equal((forced.result as { answer: { flag: string } }).answer.flag, '+');
      assert.equal((forced.result as { old: string }).old, h.commits.c3);
      assert.equal(server.refOf(r.name, 'refs/heads/main'), withDelete.commits.c1);
    } finally {
      await plain.done();
      await withDelete.done();
    }
  });

  it('the connection dropped after the daemon took the pack: ambiguous; the retry is not pushed: it reconciles (ls-remote) and finds our commit: one push in all', async () => {
    const r = repo();
    const env = envelope('git.push', { remote: r.url, ref: 'main' }, { idempotency_key: 'drop-1' });
    const packs = server.packsDelivered;
    server.behaviour = 'drop_after_pack';
    let retry;
    try {
      const x = await h.rt.call(env);
      assert.equal(x.status, 'ambiguous', JSON.stringify(x.error));
      assert.equal(x.error?.code, 'ambiguous_effect');
      // The daemon still drops pushes: a blind second push would show as a second pack.
      retry = await h.rt.call(env);
    } finally {
      server.behaviour = 'pass';
    }
    assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
    assert.equal((retry.evidence as { reconciliation?: { by: string } }).reconciliation?.by, 'reconcile');
    assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c3, 'the daemon did update the ref');
    const report = await h.rt.reconcile();
    assert.equal(report.entries.filter((e) => e.effect_key === 'k:drop-1').length, 0, 'nothing left for an operator');
    const replay = await h.rt.call(env);
    assert.equal(replay.status, 'succeeded');
    assert.equal(replay.replay, true);
    assert.equal(server.packsDelivered, packs + 1, 'exactly one push reached the remote');
    assert.equal(server.refMoves(r.name, 'refs/heads/main'), 1, 'the ref moved once: one effect');
  });

  it('the connection dropped and the pack never arrived: reconcile finds the old value (released) and the retry pushes exactly once', async () => {
    const r = repo();
    const env = envelope('git.push', { remote: r.url, ref: 'main' }, { idempotency_key: 'drop-2' });
    const packs = server.packsDelivered;
    server.behaviour = 'swallow_pack';
    try {
      assert.equal((await h.rt.call(env)).status, 'ambiguous');
    } finally {
      server.behaviour = 'pass';
    }
    assert.equal(server.refOf(r.name, 'refs/heads/main'), null);
    const report = await h.rt.reconcile();
    assert.equal(report.entries.find((e) => e.effect_key === 'k:drop-2')?.settled, 'released', JSON.stringify(report));
    const x = await h.rt.call(env);
    assert.equal(x.status, 'succeeded', JSON.stringify(x.error));
    assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c3);
    assert.equal(server.packsDelivered, packs + 1, 'one push delivered: the retry');
    assert.equal(server.refMoves(r.name, 'refs/heads/main'), 1, 'one effect');
  });

  it('someone else moved the ref after the lost answer: reconcile does not settle it, and the retry still does not push', async () => {
    const r = repo();
    const env = envelope('git.push', { remote: r.url, ref: 'main', revision: h.commits.c2 }, { idempotency_key: 'moved-1' });
    server.behaviour = 'drop_after_pack';
    try {
      assert.equal((await h.rt.call(env)).status, 'ambiguous');
    } finally {
      server.behaviour = 'pass';
    }
    // Another writer: the ref moves on to c3 behind our back.
    git(server.root, '-C', `${r.name}.git`, 'fetch', '-q', h.workspace, `${h.commits.c3}`);
    git(server.root, '-C', `${r.name}.git`, 'update-ref', 'refs/heads/main', h.commits.c3);
    const packs = server.packsDelivered;
    const report = await h.rt.reconcile();
    const entry = report.entries.find((e) => e.effect_key === 'k:moved-1');
    assert.equal(entry?.settled, 'unknown', JSON.stringify(report));
    assert.match(entry?.reason ?? '', /someone else moved it/);
    const retry = await h.rt.call(env);
    assert.equal(retry.error?.code, 'reconciliation_required');
    assert.equal(server.packsDelivered, packs, 'nothing pushed again');
    assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c3);
    assert.equal(server.refMoves(r.name, 'refs/heads/main'), 2, 'ours, then the other writer: nothing of ours again');
  });

  it('git killed while the daemon holds its answer: ambiguous; reconcile finds our commit: one effect', async () => {
    const r = repo();
    server.behaviour = 'hold';
    const env = envelope('git.push', { remote: r.url, ref: 'main' }, { idempotency_key: 'killed-1' });
    let killed = 0;
    try {
      const call = h.rt.call(env);
      assert.ok(await waitFor(() => server.refOf(r.name, 'refs/heads/main') === h.commits.c3, 30_000), 'the daemon took the push');
      assert.ok(await waitFor(() => pushProcesses(r.url).length > 0, 10_000), 'git push is running');
      for (const pid of pushProcesses(r.url)) {
        process.kill(pid, 'SIGKILL');
        killed++;
      }
      const x = await call;
      assert.equal(x.status, 'ambiguous', JSON.stringify(x.error));
      assert.match(x.error?.message ?? '', /SIGKILL|signaled/);
    } finally {
      server.behaviour = 'pass';
      server.release();
    }
    assert.equal(killed, 1);
    const report = await h.rt.reconcile();
    assert.equal(report.entries.find((e) => e.effect_key === 'k:killed-1')?.settled, 'completed', JSON.stringify(report));
    assert.equal((await h.rt.call(env)).replay, true);
    assert.equal(server.refMoves(r.name, 'refs/heads/main'), 1, 'one effect');
  });

  it('a deadline that passes while the daemon holds its answer: ambiguous, git is gone, reconcile completes: one push', async () => {
    const r = repo();
    const packs = server.packsDelivered;
    server.behaviour = 'hold';
    const env = envelope('git.push', { remote: r.url, ref: 'main' }, { idempotency_key: 'hold-1', deadline: new Date(Date.now() + 4_000).toISOString() });
    try {
      const x = await h.rt.call(env);
      assert.equal(x.status, 'ambiguous', JSON.stringify(x.error));
      assert.deepEqual(orphanedGitProcesses(), [], 'no git process outlived the call');
    } finally {
      server.behaviour = 'pass';
      server.release();
    }
    assert.equal(server.refOf(r.name, 'refs/heads/main'), h.commits.c3);
    const report = await h.rt.reconcile();
    assert.equal(report.entries.find((e) => e.effect_key === 'k:hold-1')?.settled, 'completed', JSON.stringify(report));
    assert.equal((await h.rt.call(env)).replay, true);
    assert.equal(server.packsDelivered, packs + 1);
    assert.equal(server.refMoves(r.name, 'refs/heads/main'), 1, 'one effect');
  });
});
