// Where a git process may go: only to the address authorized at normalize. Refused destinations
// (metadata, private, loopback aliases, foreign transports, credentials in the URL) send
// nothing; a rebinding name does not move git (git:// dials the address, http(s) gets curl's
// resolve list); proxy variables, the workspace's .git/config and its hooks change nothing; the
// configured credential reaches the server and nothing recorded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { dnsServerResolver } from '../../../src/resources/index.js';
import { envelope } from '../../support/fixtures.js';
import { answersFrom, TestDnsServer } from '../../support/dns-server.js';
import { GitDaemonServer } from './git-server.js';
import { GitHttpServer } from './http-server.js';
import { DAEMON_ADDRESS, HTTP_ADDRESS, REBIND_ADDRESS, TOKEN, TOKEN_ENV, git, grant, gitRuntime, type GitRuntime } from './harness.js';

/** Every file under `dir`, read whole (the state dir: SQLite, WAL, artifacts). */
function allBytes(dir: string): Buffer {
  const parts: Buffer[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else parts.push(readFileSync(p));
    }
  };
  walk(dir);
  return Buffer.concat(parts);
}

/** A second server on another address, same port: what a rebound name would reach. */
async function listenOn(address: string, port: number): Promise<{ server: net.Server; connections: () => number }> {
  let n = 0;
  const server = net.createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  return { server, connections: () => n };
}

describe('git.push destinations', () => {
  let daemon: GitDaemonServer;
  let web: GitHttpServer;
  let dns: TestDnsServer;
  let h: GitRuntime;
  let decoyDaemon: Awaited<ReturnType<typeof listenOn>>;
  let decoyWeb: Awaited<ReturnType<typeof listenOn>>;

  before(async () => {
    // The decoy needs the server's port on another address; another test may hold that port
    // there: a new pair then, at most 5 tries.
    for (let i = 0; ; i++) {
      daemon = await GitDaemonServer.start(DAEMON_ADDRESS);
      try {
        decoyDaemon = await listenOn(REBIND_ADDRESS, daemon.port);
        break;
      } catch (e) {
        await daemon.close();
        if (i === 4) throw e;
      }
    }
    for (let i = 0; ; i++) {
      web = await GitHttpServer.start(HTTP_ADDRESS);
      try {
        decoyWeb = await listenOn(REBIND_ADDRESS, web.port);
        break;
      } catch (e) {
        await web.close();
        if (i === 4) throw e;
      }
    }
    dns = await TestDnsServer.start((q) => {
      if (q.name === 'rebind.test') return q.type === 'A' ? [q.nth === 0 ? DAEMON_ADDRESS : REBIND_ADDRESS] : [];
      if (q.name === 'git.test') return q.type === 'A' ? [q.nth === 0 ? HTTP_ADDRESS : REBIND_ADDRESS] : [];
      return answersFrom({ 'meta.test': { A: ['169.254.169.254'] }, 'private.test': { A: ['10.0.0.7'] }, 'mapped.test': { AAAA: ['::ffff:127.0.0.1'] } })(q);
    });
    // Hosts granted on purpose, so that the refusal is the address's class, not the host list.
    const g = grant();
    h = await gitRuntime({
      grant: { ...g, hosts: [...(g.hosts as string[]), '169.254.169.254', '127.0.0.1', '10.0.0.1', 'mapped.test', '*.internal'] },
      config: { remotes: [{ url: `http://git.test:${web.port}/**`, auth: { env: TOKEN_ENV, prefix: 'Bearer ' } }] },
      extra: { resolver: dnsServerResolver({ servers: [dns.server] }) },
    });
  });
  after(async () => {
    await h.done();
    await daemon.close();
    await web.close();
    await dns.close();
    decoyDaemon.server.close();
    decoyWeb.server.close();
  });

  it('refuses metadata, private and loopback-alias destinations, foreign transports and credentials in the URL, with nothing sent', async () => {
    const before = { d: daemon.connections, w: web.requests.length };
    const cases: [string, string][] = [
      ['git://meta.test/r.git', 'address_class'],
      ['git://169.254.169.254/r.git', 'address_class'],
      ['git://0xa9fea9fe/r.git', 'address_class'],
      ['git://private.test/r.git', 'address_class'],
      ['http://10.0.0.1/r.git', 'address_class'],
      [`git://0x7f.1:${daemon.port}/r.git`, 'address_class'],
      [`git://127.0.0.1:${daemon.port}/r.git`, 'address_class'],
      ['git://mapped.test/r.git', 'address_class'],
      [`git://${REBIND_ADDRESS}:${daemon.port}/r.git`, 'host_not_granted'],
      ['git://metadata.google.internal/r.git', 'metadata_name'],
      [`ssh://${DAEMON_ADDRESS}/r.git`, 'scheme'],
      [`file:///${daemon.root}/r.git`, 'scheme'],
      ['ext::sh -c touch% /tmp/tg-git-ext', 'scheme'],
      [`http://user:${TOKEN}@${HTTP_ADDRESS}:${web.port}/r.git`, 'userinfo'],
    ];
    for (const [remote, reason] of cases) {
      const x = await h.rt.call(envelope('git.push', { remote, ref: 'main' }));
      assert.equal(x.error?.code, 'destination_refused', `${remote}: ${JSON.stringify(x.error)}`);
      assert.equal((x.error?.data as { reason: string }).reason, reason, remote);
    }
    assert.equal(existsSync('/tmp/tg-git-ext'), false);
    assert.deepEqual({ d: daemon.connections, w: web.requests.length }, before);
  });

  it('git:// under DNS rebinding: git dials the address authorized; the rebound address sees nothing, DNS is not asked again', async () => {
    daemon.createRepository('rebind');
    const x = await h.rt.call(envelope('git.push', { remote: `git://rebind.test:${daemon.port}/rebind.git`, ref: 'main' }));
    assert.equal(x.status, 'succeeded', JSON.stringify(x.error));
    assert.equal(dns.queries.filter((q) => q.name === 'rebind.test' && q.type === 'A').length, 1, 'one lookup, at authorization');
    assert.equal(decoyDaemon.connections(), 0);
    assert.equal(daemon.refOf('rebind', 'refs/heads/main'), h.commits.c3);
    assert.equal((x.evidence as { destination: { address: string } }).destination.address, DAEMON_ADDRESS);
    // A second call authorizes again: the name now answers the decoy, which the grant does not name.
    const again = await h.rt.call(envelope('git.push', { remote: `git://rebind.test:${daemon.port}/rebind.git`, ref: 'main' }));
    assert.equal(again.error?.code, 'destination_refused');
    assert.equal(decoyDaemon.connections(), 0);
  });

  it('http:// under DNS rebinding, with every proxy variable set: curl goes to the authorized address, by name (Host), with the configured credential; the decoy and the proxy see nothing', async () => {
    web.createRepository('web');
    const proxy = await listenOn(REBIND_ADDRESS, 0);
    const proxyUrl = `http://${REBIND_ADDRESS}:${(proxy.server.address() as net.AddressInfo).port}`;
    const saved = { ...process.env };
    for (const k of ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY']) process.env[k] = proxyUrl;
    process.env.NO_PROXY = '';
    process.env.GIT_PROXY_COMMAND = '/bin/false';
    process.env.GIT_SSL_NO_VERIFY = '1';
    try {
      const x = await h.rt.call(envelope('git.push', { remote: `http://git.test:${web.port}/web.git`, ref: 'main' }, { idempotency_key: 'web-1' }));
      assert.equal(x.status, 'succeeded', JSON.stringify(x.error));
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
      proxy.server.close();
    }
    assert.equal(web.refOf('web', 'refs/heads/main'), h.commits.c3);
    assert.equal(proxy.connections(), 0, 'no connection to the proxy');
    assert.equal(decoyWeb.connections(), 0, 'no connection to the rebound address');
    assert.equal(dns.queries.filter((q) => q.name === 'git.test' && q.type === 'A').length, 1);
    assert.ok(web.requests.length >= 3, 'ls-remote and push reached the server');
    for (const r of web.requests) {
      assert.equal(r.host, `git.test:${web.port}`);
      assert.equal(r.authorization, `Bearer ${TOKEN}`);
    }
    assert.equal(web.pushes, 1);
    assert.equal(allBytes(h.state).includes(TOKEN), false, 'the credential is nowhere in the state dir');
  });

  it("the workspace's own .git/config (insteadOf to the decoy, a proxy command, a credential helper) and hooks do not apply", async () => {
    daemon.createRepository('cfg');
    const target = `git://${DAEMON_ADDRESS}:${daemon.port}/cfg.git`;
    const marker = join(h.workspace, '..', 'hook-ran');
    git(h.workspace, 'config', `url.git://${REBIND_ADDRESS}:${daemon.port}/.insteadOf`, `git://${DAEMON_ADDRESS}:${daemon.port}/`);
    git(h.workspace, 'config', 'core.gitProxy', `/bin/sh -c 'touch ${marker}'`);
    git(h.workspace, 'config', 'credential.helper', `!touch ${marker}`);
    mkdirSync(join(h.workspace, '.git', 'hooks'), { recursive: true });
    for (const hook of ['pre-push', 'reference-transaction', 'post-update']) {
      writeFileSync(join(h.workspace, '.git', 'hooks', hook), `#!/bin/sh\ntouch ${marker}\n`);
      chmodSync(join(h.workspace, '.git', 'hooks', hook), 0o755);
    }
    try {
      const x = await h.rt.call(envelope('git.push', { remote: target, ref: 'main' }));
      assert.equal(x.status, 'succeeded', JSON.stringify(x.error));
      const f = await h.rt.call(envelope('git.fetch', { remote: target, refs: ['main'] }));
      assert.equal(f.status, 'succeeded', JSON.stringify(f.error));
    } finally {
      for (const k of [`url.git://${REBIND_ADDRESS}:${daemon.port}/.insteadOf`, 'core.gitProxy', 'credential.helper']) git(h.workspace, 'config', '--unset', k);
    }
    assert.equal(daemon.refOf('cfg', 'refs/heads/main'), h.commits.c3);
    assert.equal(decoyDaemon.connections(), 0);
    assert.equal(existsSync(marker), false, 'no hook, proxy command or helper ran');
  });
});
