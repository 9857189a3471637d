// What a git process for a remote is given, as pure functions: the URL it dials, the settings
// that pin it and shut off what could reach elsewhere or run code, and its environment.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, normalizeUrl, type AuthorizedDestination } from '../../../src/resources/index.js';
import { GIT_REMOTE_SCHEMES } from '../../../src/tools/git-remote/config.js';
import { dialUrl, gitEnvironment, pinnedConfig } from '../../../src/tools/git-remote/invocation.js';

function dest(url: string, address: string): AuthorizedDestination {
  const t = normalizeUrl(url, GIT_REMOTE_SCHEMES);
  const a = classifyAddress(address);
  return { ...t, addresses: [a], connectTo: a, servername: t.hostKind === 'name' ? t.host : null };
}

describe('git invocation', () => {
  it('git:// dials the authorized address (IPv6 in brackets), http(s) keeps the name', () => {
    assert.equal(dialUrl(dest('git://Git.Example.COM./team/app.git', '203.0.113.7')), 'git://203.0.113.7:9418/team/app.git');
    assert.equal(dialUrl(dest('git://git.example.com:9999/a.git', '2001:db8::1')), 'git://[2001:db8::1]:9999/a.git');
    assert.equal(dialUrl(dest('https://git.example.com/a.git', '203.0.113.7')), 'https://git.example.com/a.git');
  });

  it('http(s): curl is told the address for host:port, no proxy, no redirects, only this scheme', () => {
    const c = new Map(pinnedConfig(dest('https://git.example.com/a.git', '2001:db8::1'), 'Authorization: Bearer x'));
    assert.equal(c.get('http.curloptResolve'), 'git.example.com:443:[2001:db8::1]');
    assert.equal(c.get('http.proxy'), '');
    assert.equal(c.get('http.followRedirects'), 'false');
    assert.equal(c.get('protocol.allow'), 'never');
    assert.equal(c.get('protocol.https.allow'), 'always');
    assert.equal(c.get('protocol.http.allow'), undefined);
    assert.equal(c.get('core.hooksPath'), '/dev/null');
    assert.equal(c.get('credential.helper'), '');
    assert.equal(c.get('http.extraHeader'), 'Authorization: Bearer x');
  });

  it('git://: no http settings, no header', () => {
    const c = new Map(pinnedConfig(dest('git://git.example.com/a.git', '203.0.113.7'), 'Authorization: x'));
    assert.equal(c.get('protocol.git.allow'), 'always');
    assert.equal(c.has('http.extraHeader'), false);
    assert.equal(c.has('http.curloptResolve'), false);
  });

  it('the environment holds nothing of the host: no GIT_*, proxy or credential variable passes through; settings go by GIT_CONFIG_*, not argv', () => {
    const env = gitEnvironment({ home: '/tmp/h', gitDir: '/tmp/h/r.git', objects: '/ws/.git/objects', scheme: 'https', config: [['a.b', 'c']], path: '/usr/bin' });
    assert.deepEqual(Object.keys(env).sort(), [
      'GIT_ALLOW_PROTOCOL',
      'GIT_CONFIG_COUNT',
      'GIT_CONFIG_GLOBAL',
      'GIT_CONFIG_KEY_0',
      'GIT_CONFIG_NOSYSTEM',
      'GIT_CONFIG_VALUE_0',
      'GIT_DIR',
      'GIT_OBJECT_DIRECTORY',
      'GIT_PROTOCOL_FROM_USER',
      'GIT_TERMINAL_PROMPT',
      'HOME',
      'LC_ALL',
      'NO_PROXY',
      'PATH',
      'XDG_CONFIG_HOME',
      'no_proxy',
    ]);
    assert.equal(env.NO_PROXY, '*');
    assert.equal(env.GIT_ALLOW_PROTOCOL, 'https');
  });
});
