// The host-side proxy on its own: a client on its unix socket, real upstream servers on
// 127.0.0.2 / 127.0.0.3, a grant that names 127.0.0.2 only, and a resolver whose answers the
// test changes between connections (rebinding). Heads, limits, idle ends and close are checked
// by what each side saw and by the proxy's count of open sockets.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NetProxy, type NetProxyLimits } from '../../../src/sandbox/index.js';
import type { DestinationGrant, HostResolver, ResolvedAddress } from '../../../src/resources/index.js';

const GRANTED = '127.0.0.2';
const OTHER = '127.0.0.3';

/** The grant as policy would answer it for hosts [rebind.test, 127.0.0.2] and private_addresses [127.0.0.2]. */
const grant: DestinationGrant = {
  allowsHost: (host) => host === 'rebind.test' || host === GRANTED,
  namesHost: (host) => host === 'rebind.test' || host === GRANTED,
  allowsAddress: (address) => address === GRANTED,
};

interface Upstream {
  server: Server;
  port: number;
  connections: number;
  heads: string[];
  open: Set<Socket>;
}

async function upstream(address: string): Promise<Upstream> {
  const u: Upstream = { server: createServer(), port: 0, connections: 0, heads: [], open: new Set() };
  u.server.on('connection', (s) => {
    u.connections += 1;
    u.open.add(s);
    s.once('close', () => u.open.delete(s));
    let buf = '';
    s.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      if (buf.startsWith('PING')) return void s.write('PONG');
      if (!buf.includes('\r\n\r\n')) return;
      u.heads.push(buf);
      if (buf.startsWith('GET /hold')) return;
      s.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok');
    });
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => u.server.listen(0, address, resolve));
  u.port = (u.server.address() as { port: number }).port;
  return u;
}

/** Sends `text`, collects everything until the proxy closes (or `until` matches), bounded. */
function exchange(proxy: NetProxy, text: string, until?: RegExp): Promise<{ data: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const c = connect(proxy.socketPath);
    let data = '';
    const timer = setTimeout(() => {
      c.destroy();
      reject(new Error(`no answer; got ${JSON.stringify(data)}`));
    }, 10_000);
    const done = (): void => {
      clearTimeout(timer);
      resolve({ data, socket: c });
    };
    c.on('data', (d: Buffer) => {
      data += d.toString('latin1');
      if (until?.test(data)) done();
    });
    c.on('close', done);
    c.on('error', () => {});
    c.write(text);
  });
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('NetProxy', () => {
  let granted: Upstream;
  let other: Upstream;
  let answers: ResolvedAddress[];
  const resolver: HostResolver = { resolve: async () => answers };
  const start = (limits: Partial<NetProxyLimits> = {}) => NetProxy.start({ grant, resolver, limits });

  before(async () => {
    granted = await upstream(GRANTED);
    other = await upstream(OTHER);
  });
  after(async () => {
    for (const u of [granted, other]) {
      for (const s of u.open) s.destroy();
      await new Promise<void>((resolve) => u.server.close(() => resolve()));
    }
  });

  it("removes the socket folders of runtimes that are gone (a SIGKILL leaves them), not a live runtime's", async () => {
    const dead = spawnSync('true').pid as number;
    const gone = join(tmpdir(), `toolgate-net-${dead}-abc123`);
    const live = join(tmpdir(), `toolgate-net-${process.ppid}-keepme`);
    mkdirSync(gone);
    mkdirSync(live);
    try {
      const proxy = await start();
      await proxy.close();
      assert.equal(existsSync(gone), false, 'the dead runtime folder is removed');
      assert.equal(existsSync(live), true, 'a live runtime folder stays');
    } finally {
      rmSync(gone, { recursive: true, force: true });
      rmSync(live, { recursive: true, force: true });
    }
  });

  it('forwards an absolute-form request in origin form, with Host the authorized authority, no proxy credentials, Connection: close', async () => {
    const proxy = await start();
    try {
      const { data } = await exchange(
        proxy,
        `GET http://${GRANTED}:${granted.port}/a?b=1 HTTP/1.1\r\nHost: evil.test\r\nProxy-Authorization: Basic c2VjcmV0\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nX-Keep: 2\r\n\r\n`,
      );
      assert.match(data, /^HTTP\/1\.1 200 OK[\s\S]*ok$/);
      const head = granted.heads.at(-1) ?? '';
      assert.match(head, new RegExp(`^GET /a\\?b=1 HTTP/1\\.1\\r\\nHost: ${GRANTED}:${granted.port}\\r\\n`));
      assert.match(head, /X-Keep: 2/);
      assert.doesNotMatch(head, /Proxy-Authorization|X-Drop|keep-alive|evil\.test/i);
      assert.match(head, /Connection: close\r\n\r\n$/);
      const c = proxy.report().connections[0];
      assert.equal(c?.decision, 'allowed');
      assert.equal(c?.bytes_up, Buffer.byteLength(head));
    } finally {
      await proxy.close();
    }
  });

  it('authorizes every connection again: a name that rebinds to an address outside the grant is refused, and nothing reaches it', async () => {
    const proxy = await start();
    try {
      answers = [{ address: GRANTED, family: 4 }];
      const first = await exchange(proxy, `CONNECT rebind.test:${granted.port} HTTP/1.1\r\n\r\nPING`, /PONG/);
      first.socket.destroy();
      assert.match(first.data, /^HTTP\/1\.1 200 Connection Established\r\n\r\nPONG/);
      answers = [{ address: OTHER, family: 4 }];
      const otherBefore = other.connections;
      const second = await exchange(proxy, `CONNECT rebind.test:${other.port} HTTP/1.1\r\n\r\n`);
      assert.match(second.data, /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*X-Toolgate-Refusal: address_class\r\n/);
      assert.equal(other.connections, otherBefore);
      assert.deepEqual(
        proxy.report().connections.map((c) => [c.decision, c.address, c.reason]),
        [
          ['allowed', GRANTED, null],
          ['refused', null, 'address_class'],
        ],
      );
    } finally {
      await proxy.close();
    }
  });

  it('answers malformed and oversized heads, other schemes and a failed connect itself, recording each', async () => {
    const proxy = await start({ maxHeadBytes: 1024 });
    try {
      const cases: [string, RegExp][] = [
        ['GET /relative HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 400 /],
        ['CONNECT nohostport HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /],
        ['GET http://127.0.0.2/ HTTP/1.1\r\n folded: header\r\n\r\n', /^HTTP\/1\.1 400 /],
        [`GET http://127.0.0.2/ HTTP/1.1\r\nX-Big: ${'a'.repeat(2000)}\r\n\r\n`, /^HTTP\/1\.1 431 /],
        ['GET ftp://127.0.0.2/ HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 403 [\s\S]*X-Toolgate-Refusal: scheme/],
        ['GET http://user:pw@127.0.0.2/ HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 403 [\s\S]*X-Toolgate-Refusal: userinfo/],
        // Port 1 on the granted address: nothing listens.
        ['CONNECT 127.0.0.2:1 HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 502 [\s\S]*ECONNREFUSED/],
      ];
      for (const [head, expected] of cases) assert.match((await exchange(proxy, head)).data, expected, head.slice(0, 40));
      const report = proxy.report();
      assert.deepEqual(
        report.connections.map((c) => [c.decision, c.reason]),
        [
          ['refused', 'bad_request'],
          ['refused', 'bad_request'],
          ['refused', 'bad_request'],
          ['refused', 'bad_request'],
          ['refused', 'scheme'],
          ['refused', 'userinfo'],
          ['failed', 'connect_failed:ECONNREFUSED'],
        ],
      );
      assert.equal(report.allowed, 0);
      assert.equal(report.failed, 1);
    } finally {
      await proxy.close();
    }
  });

  it('bounded: past maxConnections each connection gets 503; an idle tunnel is closed', async () => {
    const proxy = await start({ maxConnections: 2, idleMs: 300 });
    try {
      const tunnel = await exchange(proxy, `CONNECT ${GRANTED}:${granted.port} HTTP/1.1\r\n\r\nPING`, /PONG/);
      const closed = new Promise<void>((resolve) => tunnel.socket.once('close', () => resolve()));
      await closed; // the idle timer ends it: no byte either way for 300 ms
      await exchange(proxy, `GET http://${GRANTED}:${granted.port}/ HTTP/1.1\r\n\r\n`);
      const third = await exchange(proxy, `GET http://${GRANTED}:${granted.port}/ HTTP/1.1\r\n\r\n`);
      assert.match(third.data, /^HTTP\/1\.1 503 [\s\S]*X-Toolgate-Refusal: connection_limit/);
      assert.equal(proxy.report().refused, 1);
      await eventually(() => proxy.openSockets === 0, `every socket to close (${proxy.openSockets} open)`);
    } finally {
      await proxy.close();
    }
  });

  it('close() ends every open tunnel at both ends and removes the socket', async () => {
    const proxy = await start();
    const c = connect(proxy.socketPath);
    c.on('error', () => {});
    c.resume(); // reading, so the proxy's end reaches it
    c.write(`CONNECT ${GRANTED}:${granted.port} HTTP/1.1\r\n\r\nPING`);
    await eventually(() => granted.open.size >= 1 && proxy.openSockets >= 2, 'the tunnel to open');
    const clientClosed = new Promise<void>((resolve) => c.once('close', () => resolve()));
    await proxy.close();
    await clientClosed;
    assert.equal(proxy.openSockets, 0);
    await eventually(() => granted.open.size === 0, 'the upstream side to close');
    assert.equal(existsSync(proxy.socketPath), false);
  });
});
