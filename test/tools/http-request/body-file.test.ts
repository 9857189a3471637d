// A body larger than an argument should carry comes from a workspace file: a read of a path the
// grant must cover, refused when the file is a secret (by name or by hard link) or too large,
// and kept as an artifact so the receipt names the bytes that left, whatever the file holds later.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envelope } from '../../support/fixtures.js';
import { Provider } from './provider.js';
import { grantFor, HOST_POLICY, httpRuntime, PROVIDER_ADDRESS, type HttpRuntime } from './harness.js';

describe('http.request body_file', () => {
  let provider: Provider;
  let h: HttpRuntime;
  let url: string;
  const big = randomBytes(3 * 512 * 1024).toString('hex'); // 3 MiB of text: past the 1 MiB inline limit

  before(async () => {
    provider = await Provider.start(PROVIDER_ADDRESS);
    h = await httpRuntime({
      grant: { ...grantFor(), read: ['data/**', 'linked.bin', 'huge.bin', '.env'] } as never,
      policies: [{ name: 'http.cedar', text: `${HOST_POLICY}\npermit (principal, action, resource is Toolgate::Path);` }],
    });
    url = `http://${PROVIDER_ADDRESS}:${provider.port}/uploads`;
    mkdirSync(join(h.workspace, 'data'));
    writeFileSync(join(h.workspace, 'data', 'upload.txt'), big);
    writeFileSync(join(h.workspace, 'data', 'other.txt'), 'not granted? it is: data/** covers it');
    writeFileSync(join(h.workspace, '.env'), 'API_TOKEN=sk-live-0123456789abcdef0123456789abcdef\n');
    linkSync(join(h.workspace, '.env'), join(h.workspace, 'linked.bin'));
    writeFileSync(join(h.workspace, 'huge.bin'), '');
    truncateSync(join(h.workspace, 'huge.bin'), 33 * 1024 * 1024);
    writeFileSync(join(h.workspace, 'outside.txt'), 'the grant does not name me');
  });
  after(async () => {
    await h.done();
    await provider.close();
  });

  it('a 3 MiB file is sent whole, its path is a read resource of the call, and the artifact the receipt names holds the bytes sent', async () => {
    const r = await h.rt.call(envelope('http.request', { method: 'POST', url, body_file: 'data/upload.txt' }, { idempotency_key: 'upload-1' }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    const seen = provider.requests.at(-1);
    assert.equal(seen?.body.length, big.length);
    assert.equal(seen?.body, big);
    assert.deepEqual(r.normalized_action?.resources.find((x) => x.kind === 'path'), { kind: 'path', path: 'data/upload.txt', access: 'read' });
    const sha = createHash('sha256').update(big).digest('hex');
    const ev = r.evidence as { request_sha256: string; request_body_file: { path: string; size: number; sha256: string } };
    assert.equal(ev.request_sha256, sha);
    assert.equal(ev.request_body_file.size, big.length);
    const artifact = r.artifacts.find((a) => a.digest === ev.request_body_file.sha256);
    assert.ok(artifact, JSON.stringify(r.artifacts));
    assert.equal(h.rt.artifacts.get(artifact.digest).toString('utf8'), big);
  });

  it('a secret by name, a hard link to it, a file over 32 MiB, a path the grant does not cover, and body with body_file: each refused typed, nothing sent', async () => {
    const before = provider.requests.length;
    const cases: [string, Record<string, unknown>, string][] = [
      ['.env', { body_file: '.env' }, 'secret_path'],
      ['hard link to .env', { body_file: 'linked.bin' }, 'secret_path'],
      ['33 MiB', { body_file: 'huge.bin' }, 'limit_exceeded'],
      ['outside the grant', { body_file: 'outside.txt' }, 'policy_denied'],
      ['escape', { body_file: '../../etc/passwd' }, 'path_escape'],
      ['both', { body: 'x', body_file: 'data/other.txt' }, 'invalid_arguments'],
    ];
    let i = 0;
    for (const [what, args, code] of cases) {
      const r = await h.rt.call(envelope('http.request', { method: 'POST', url, ...args }, { idempotency_key: `refused-${i++}` }));
      assert.equal(r.error?.code, code, `${what}: ${JSON.stringify(r.error)}`);
      assert.notEqual(r.status, 'ambiguous', what);
    }
    assert.equal(provider.requests.length, before, 'not one request left');
  });
});
