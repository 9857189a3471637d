// The manifest's parts on a small package made here: which files it lists (and how a link is
// recorded), which lock entries are runtime dependencies, and that verify compares against it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { computeManifest, packageRootOf, runtimeDependencies, runtimeDigestOf, shippedForm, verifyInstalled, RUNTIME_MANIFEST_PATH } from '../../src/provenance/index.js';
import { tempDirs } from '../support/fixtures.js';

const LOCK = {
  lockfileVersion: 3,
  packages: {
    '': { name: 'toolgate', version: '1.0.0' },
    'node_modules/a': { version: '1.2.3', integrity: 'sha512-a' },
    'node_modules/a/node_modules/b': { version: '0.1.0', integrity: 'sha512-b' },
    'node_modules/@s/c-linux': { version: '2.0.0', integrity: 'sha512-c', optional: true },
    'node_modules/typescript': { version: '5.9.3', integrity: 'sha512-t', dev: true },
    'node_modules/toolgate': { resolved: '', link: true },
  },
};

/** A package laid out as npm installs one: package.json, built code, schemas, and the lock beside it. */
function fakePackage(dir: string, codeDir: string): void {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'toolgate', version: '1.0.0', files: ['dist/src', 'schemas'] }));
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(LOCK));
  mkdirSync(join(dir, codeDir, 'provenance'), { recursive: true });
  writeFileSync(join(dir, codeDir, 'provenance', 'index.js'), 'export {};\n');
  mkdirSync(join(dir, 'schemas'));
  writeFileSync(join(dir, 'schemas', 'grant.schema.json'), '{}\n');
  writeFileSync(join(dir, 'not-shipped.txt'), 'x');
  // the top-level runtime dependency, installed at its locked version (b is nested, c optional)
  mkdirSync(join(dir, 'node_modules', 'a'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'a', 'package.json'), JSON.stringify({ name: 'a', version: '1.2.3' }));
}

describe('runtime manifest', () => {
  it('takes every runtime entry of the lock, nested and optional ones too, and no dev-only package or link', () => {
    assert.deepEqual(runtimeDependencies(LOCK), [
      { path: 'node_modules/@s/c-linux', name: '@s/c-linux', version: '2.0.0', integrity: 'sha512-c', optional: true },
      { path: 'node_modules/a', name: 'a', version: '1.2.3', integrity: 'sha512-a', optional: false },
      { path: 'node_modules/a/node_modules/b', name: 'b', version: '0.1.0', integrity: 'sha512-b', optional: false },
    ]);
    assert.throws(() => runtimeDependencies({ lockfileVersion: 1, dependencies: {} }), /lockfileVersion 2 or 3/);
  });

  it('lists the shipped files with their sha256, records a link by its target without following it, and leaves the rest out', async () => {
    const d = tempDirs('tg-manifest');
    try {
      fakePackage(d.base, 'dist/src');
      symlinkSync('/etc/passwd', join(d.base, 'schemas', 'leak.json'));
      const root = packageRootOf(pathToFileURL(join(d.base, 'dist/src/provenance/index.js')));
      assert.equal(root.codeDir, 'dist/src');
      const m = await computeManifest(root);
      assert.deepEqual(m.files.map((f) => f.path), ['dist/src/provenance/index.js', 'package.json', 'schemas/grant.schema.json', 'schemas/leak.json']);
      assert.equal(m.files.find((f) => f.path === 'schemas/leak.json')?.sha256, 'symlink:/etc/passwd');
      assert.equal(m.files.find((f) => f.path === 'schemas/grant.schema.json')?.sha256, createHash('sha256').update('{}\n').digest('hex'));
      assert.equal(m.dependencies.length, 3);
      // Run from source (tsx), the code digested is src/, the code that runs.
      fakePackage(d.workspace, 'src');
      const fromSource = packageRootOf(pathToFileURL(join(d.workspace, 'src/provenance/index.ts')));
      assert.equal(fromSource.codeDir, 'src');
      assert.deepEqual((await computeManifest(fromSource)).files.map((f) => f.path), ['package.json', 'schemas/grant.schema.json', 'src/provenance/index.js']);
    } finally {
      d.cleanup();
    }
  });

  it('verify finds a link retargeted after packing, and the digest moves with it', async () => {
    const d = tempDirs('tg-manifest-link');
    try {
      fakePackage(d.base, 'dist/src');
      symlinkSync('grant.schema.json', join(d.base, 'schemas', 'alias.json'));
      const root = packageRootOf(pathToFileURL(join(d.base, 'dist/src/provenance/index.js')));
      const shipped = shippedForm(await computeManifest(root));
      writeFileSync(join(d.base, RUNTIME_MANIFEST_PATH), JSON.stringify(shipped));
      const clean = await verifyInstalled(root);
      assert.equal(clean.kind === 'checked' && clean.ok, true);
      unlinkSync(join(d.base, 'schemas', 'alias.json'));
      symlinkSync('/etc/shadow', join(d.base, 'schemas', 'alias.json'));
      const r = await verifyInstalled(root);
      assert.equal(r.kind, 'checked');
      if (r.kind !== 'checked') return;
      assert.deepEqual(r.differences, [{ kind: 'changed', path: 'schemas/alias.json', expected: 'symlink:grant.schema.json', actual: 'symlink:/etc/shadow' }]);
      assert.notEqual(r.digest, shipped.digest);
      assert.equal(runtimeDigestOf(shipped), shipped.digest);
    } finally {
      d.cleanup();
    }
  });
});
