// Secret path patterns are picomatch globs (docs/paths.md): configured patterns with `/`, `**`
// and `{a,b}` now match; before, the hand-written matcher took them literally and they matched
// nothing (a configured secret was readable). Today's patterns keep their answers: a property
// test compares the classifier with the former matcher, kept here as the oracle.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_SECRET_PATTERNS, PathClassifier } from '../../src/resources/index.js';
import { envelope, testRuntime } from '../support/fixtures.js';

/** The matcher before picomatch: `*`/`?` per last component, `dir/` per component, `a/b` as a literal suffix. */
function formerSecret(patterns: readonly string[], path: string): boolean {
  const re = (g: string): RegExp => new RegExp(`^${g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*').replaceAll('?', '[^/]')}$`);
  const dirs = patterns.filter((p) => p.endsWith('/')).map((p) => p.slice(0, -1));
  const multi = patterns.filter((p) => !p.endsWith('/') && p.includes('/'));
  const names = patterns.filter((p) => !p.includes('/')).map(re);
  const parts = path.split('/');
  const last = parts[parts.length - 1] as string;
  return parts.some((p) => dirs.includes(p)) || names.some((r) => r.test(last)) || multi.some((m) => path === m || path.endsWith('/' + m));
}

const CONFIGURED = ['config/*.json', 'secrets/**', '**/creds/*.txt', 'keys.{yml,yaml}', '/top-only.txt', 'deploy/prod/'];

describe('secret path patterns', () => {
  it('today\'s patterns (the defaults and name or directory patterns) classify exactly as before', () => {
    const extra = ['*.secret', 'private/', 'tok?n', '.local-*'];
    const c = new PathClassifier(extra);
    const component = fc.constantFrom(
      ...['.env', '.env.local', 'a.pem', '.pem', 'x.key', 'key', 'id_rsa', 'id_rsa.pub', 'id_ed25519', 'id_ecdsa_x', '.npmrc', '.netrc'],
      ...['.pypirc', '.git-credentials', '.aws', '.ssh', '.gnupg', '.docker', 'config.json', 'src', 'a', 'env', '.envrc'],
      ...['a.secret', 'private', 'token', 'tokken', '.local-x', 'x*y', '[a]', 'a{b}', 'a b'],
    );
    fc.assert(
      fc.property(fc.array(component, { minLength: 1, maxLength: 5 }), (parts) => {
        const path = parts.join('/');
        assert.equal(c.classify(path) === 'secret', formerSecret([...DEFAULT_SECRET_PATTERNS, ...extra], path), path);
      }),
      { numRuns: 5000 },
    );
  });

  it('patterns with /, ** and {a,b} match (they matched nothing before)', () => {
    const c = new PathClassifier(CONFIGURED);
    const secret = ['config/db.json', 'app/config/db.json', 'secrets/a', 'secrets/deep/er/b.txt', 'x/secrets/.hidden', 'creds/a.txt', 'a/b/creds/c.txt'];
    const secret2 = ['keys.yml', 'sub/keys.yaml', 'top-only.txt', 'deploy/prod', 'deploy/prod/k8s/secret.yaml', 'x/deploy/prod/a'];
    for (const p of [...secret, ...secret2]) {
      assert.equal(c.classify(p), 'secret', p);
      assert.equal(formerSecret([...DEFAULT_SECRET_PATTERNS, ...CONFIGURED], p), false, `${p} was not secret before`);
    }
    for (const p of ['config/db.yaml', 'config/sub/db.json', 'secretsx/a', 'creds/a.md', 'keys.json', 'sub/top-only.txt', 'deploy/staging/a', 'deploy/prod.txt']) {
      assert.equal(c.classify(p), 'ordinary', p);
    }
  });

  it('fs.read refuses a file matched by a configured glob with secret_path; an unmatched neighbour reads', async () => {
    const t = await testRuntime({ secretPatterns: CONFIGURED });
    try {
      const files = ['config/db.json', 'secrets/deep/token', 'src/creds/a.txt', 'keys.yaml', 'top-only.txt', 'deploy/prod/env', 'config/readme.md'];
      for (const f of files) {
        mkdirSync(dirname(join(t.workspace, f)), { recursive: true });
        writeFileSync(join(t.workspace, f), `canary ${f}\n`);
      }
      for (const f of files.slice(0, -1)) {
        const r = await t.rt.call(envelope('fs.read', { path: f }));
        assert.equal(r.error?.code, 'secret_path', f);
        assert.doesNotMatch(JSON.stringify(r), /canary/);
      }
      const ok = await t.rt.call(envelope('fs.read', { path: 'config/readme.md' }));
      assert.equal(ok.status, 'succeeded');
    } finally {
      await t.done();
    }
  });
});
