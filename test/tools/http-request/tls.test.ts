// http.request over TLS to a name that resolves to a pinned loopback address: the connection goes
// to the authorized address, yet the TLS server name is the host name (SNI), and the certificate
// is verified for that name, so pinning the address never weakens hostname verification.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { tempDirs } from '../../support/fixtures.js';
import { PROVIDER_ADDRESS } from './harness.js';

const CHILD = join(import.meta.dirname, 'tls-child.ts');

/** A CA and a leaf certificate for `name` signed by it, made with openssl in `dir`. */
function certificates(dir: string, names: readonly string[]): { ca: string; leaves: Map<string, { key: Buffer; cert: Buffer }> } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=toolgate test CA');
  const leaves = new Map<string, { key: Buffer; cert: Buffer }>();
  for (const name of names) {
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=DNS:${name}\n`);
    run('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
    leaves.set(name, { key: readFileSync(join(dir, `${name}.key`)), cert: readFileSync(join(dir, `${name}.pem`)) });
  }
  return { ca: join(dir, 'ca.pem'), leaves };
}

interface Seen {
  requests: number;
  servernames: (string | false | null)[];
}

function serve(tls: { key: Buffer; cert: Buffer }): Promise<{ server: https.Server; port: number; seen: Seen }> {
  const seen: Seen = { requests: 0, servernames: [] };
  const server = https.createServer(tls, (req, res) => {
    seen.requests++;
    seen.servernames.push((req.socket as TLSSocket).servername);
    res.end(`over tls ${req.url ?? ''}\n`);
  });
  return new Promise((resolve) => server.listen(0, PROVIDER_ADDRESS, () => resolve({ server, port: (server.address() as AddressInfo).port, seen })));
}

describe('http.request over TLS to a pinned address', () => {
  const dirs = tempDirs('tg-http-tls');
  let good: Awaited<ReturnType<typeof serve>>;
  let wrong: Awaited<ReturnType<typeof serve>>;
  let ca: string;

  before(async () => {
    const made = certificates(dirs.base, ['tls.test', 'other.test']);
    ca = made.ca;
    good = await serve(made.leaves.get('tls.test') as { key: Buffer; cert: Buffer });
    wrong = await serve(made.leaves.get('other.test') as { key: Buffer; cert: Buffer });
  });
  after(async () => {
    await Promise.all([good, wrong].filter(Boolean).map((s) => new Promise((r) => s.server.close(r))));
    dirs.cleanup();
  });

  it('connects to the authorized address, names the host in SNI and verifies the certificate for it; a certificate for another name is refused before anything is sent', async () => {
    // Not spawnSync: the servers live in this process and must answer while the child runs.
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dirs.workspace, dirs.state, `https://TLS.test.:${good.port}/a`, `https://tls.test:${wrong.port}/b`], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: ca },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    clearTimeout(timer);
    assert.equal(code, 0, stderr);
    const [ok, refused] = JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as { status: string; error: { code: string } | null; result: Record<string, unknown> | null }[];
    assert.equal(ok?.status, 'succeeded', JSON.stringify(ok?.error));
    assert.equal(ok?.result?.['body'], 'over tls /a\n');
    assert.deepEqual(ok?.result?.['destination'], {
      url: `https://tls.test:${good.port}/a`,
      address: PROVIDER_ADDRESS,
      port: good.port,
      servername: 'tls.test',
      addresses: [{ address: PROVIDER_ADDRESS, class: 'loopback' }],
    });
    assert.deepEqual(good.seen.servernames, ['tls.test'], 'the server was asked for tls.test by name, not by address');
    assert.notEqual(refused?.status, 'succeeded');
    assert.equal(refused?.error?.code, 'execution_failed', JSON.stringify(refused?.error));
    assert.deepEqual([(refused?.error as { data?: { reason?: string; errno?: string } } | null)?.data?.reason, (refused?.error as { data?: { errno?: string } } | null)?.data?.errno], ['connect_failed', 'ERR_TLS_CERT_ALTNAME_INVALID']);
    assert.equal(wrong.seen.requests, 0, 'no request reached the server whose certificate names another host');
  });
});
