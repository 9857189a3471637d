// `npm ci` inside the sandbox with network: allowlist, against a real registry in a network
// namespace (a node server answering a packument and a tarball built with `npm pack` of a
// fixture package): the only way the install can fetch is the proxy, which authorizes the
// registry named in the grant.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NetworkReport } from '../../../src/sandbox/index.js';
import { netRig, resultOf, type NetRig } from './network-rig.js';

const PKG = 'tg-fixture-pkg';
const TARBALL_PATH = `/${PKG}/-/${PKG}-1.0.0.tgz`;

describe('npm ci through the allowlist proxy', () => {
  let r: NetRig;
  let fixture: string;
  let integrity: string;
  let registry: string;

  before(async () => {
    fixture = mkdtempSync(join(tmpdir(), 'tg-npm-fixture-'));
    const pkg = join(fixture, 'pkg');
    mkdirSync(pkg);
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: PKG, version: '1.0.0', main: 'index.js', license: 'MIT' }));
    writeFileSync(join(pkg, 'index.js'), "module.exports = 'fixture package loaded';\n");
    execFileSync('npm', ['pack', '--silent', '--pack-destination', fixture], { cwd: pkg, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
    const tgz = join(fixture, `${PKG}-1.0.0.tgz`);
    const bytes = readFileSync(tgz);
    integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
    const packument = join(fixture, 'packument.json');
    r = await netRig({ files: () => ({ [`/${PKG}`]: packument, [TARBALL_PATH]: tgz }) });
    registry = `http://registry.test:${r.server.port}/`;
    writeFileSync(
      packument,
      JSON.stringify({
        name: PKG,
        'dist-tags': { latest: '1.0.0' },
        versions: { '1.0.0': { name: PKG, version: '1.0.0', dist: { tarball: `${registry}${TARBALL_PATH.slice(1)}`, integrity, shasum: createHash('sha1').update(bytes).digest('hex') } } },
      }),
    );
  });
  after(async () => {
    await r?.done();
    rmSync(fixture, { recursive: true, force: true });
  });

  it('npm ci installs the locked package from the registry in the grant; the receipt lists the registry connections', async () => {
    writeFileSync(join(r.workspace, 'package.json'), JSON.stringify({ name: 'proj', version: '1.0.0', dependencies: { [PKG]: '1.0.0' } }));
    writeFileSync(
      join(r.workspace, 'package-lock.json'),
      JSON.stringify({
        name: 'proj',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'proj', version: '1.0.0', dependencies: { [PKG]: '1.0.0' } },
          [`node_modules/${PKG}`]: { version: '1.0.0', resolved: `${registry}${TARBALL_PATH.slice(1)}`, integrity, license: 'MIT' },
        },
      }),
    );
    const before = await r.server.stats();
    const receipt = await r.exec(`npm ci --no-audit --no-fund --registry=${registry} && node -e "console.log(require('${PKG}'))"`, {
      env: { set: { npm_config_update_notifier: 'false' } },
      timeout_ms: 180_000,
    });
    const res = resultOf(receipt);
    assert.equal(receipt.status, 'succeeded', `${res.stdout.preview}\n${res.stderr.preview}`);
    assert.match(res.stdout.preview, /fixture package loaded/);
    assert.ok(existsSync(join(r.workspace, 'node_modules', PKG, 'index.js')), 'node_modules is populated in the workspace');
    const net = res.network as NetworkReport;
    assert.ok(net.connections.length >= 1);
    assert.ok(
      net.connections.every((c) => c.host === 'registry.test' && c.port === r.server.port && c.address === r.ns.nsAddress && c.decision === 'allowed'),
      JSON.stringify(net.connections),
    );
    assert.ok(net.bytes_down >= readFileSync(join(fixture, `${PKG}-1.0.0.tgz`)).length);
    const after = await r.server.stats();
    assert.ok(after.requests.slice(before.requests.length).includes(`GET ${TARBALL_PATH}`), JSON.stringify(after.requests));
    assert.equal(after.connections - before.connections, net.allowed, 'every connection the server saw is one the receipt lists');
  });
});
