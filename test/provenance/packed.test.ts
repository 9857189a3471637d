// The runtime digest of a real packed package: npm pack's own file list, installed into a
// project's node_modules, then tampered with. The package is built from this checkout's dist
// (npm test builds first); the manifest and SBOM scripts run as prepack runs them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { digestOf } from '../../src/protocol/index.js';
import { runtimeDependencies } from '../../src/provenance/index.js';

const repo = join(import.meta.dirname, '..', '..');
const NPM_TIMEOUT = 240_000;

let base = '';
/** The installed package: <project>/node_modules/toolgate. */
let installed = '';
let shippedDigest = '';
let packedFiles: string[] = [];

function toolgate(...args: string[]): { code: number; out: string; err: string } {
  // The package's command (package.json bin), as npm would link it.
  const r = spawnSync(process.execPath, [join(installed, 'dist/src/cli/bin.cjs'), ...args], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

/** What a fresh process that imports the installed package computes (no module cache shared with this one). */
function inFreshProcess(code: string): string {
  // A module file, not --input-type: the runtime's worker threads inherit the process's flags.
  const file = join(base, `child-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, code);
  try {
    return execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 120_000, cwd: base }).trim();
  } finally {
    unlinkSync(file);
  }
}

function implementationDigestOfFsRead(): string {
  const url = pathToFileURL(join(installed, 'dist/src/index.js')).href;
  return inFreshProcess(`const m = await import(${JSON.stringify(url)}); console.log(m.builtinTools().find((t) => t.name === 'fs.read').implementation_digest);`);
}

before(() => {
  base = mkdtempSync(join(tmpdir(), 'tg-packed-'));
  // A copy of what the package is made from, with the repo's node_modules for the scripts' tools.
  const src = join(base, 'src-pkg');
  mkdirSync(src);
  for (const f of ['package.json', 'package-lock.json', 'README.md', 'LICENSE']) cpSync(join(repo, f), join(src, f));
  for (const d of ['dist/src', 'schemas', 'policies', 'docs', 'scripts']) cpSync(join(repo, d), join(src, d), { recursive: true });
  symlinkSync(join(repo, 'node_modules'), join(src, 'node_modules'));
  // prepack's steps after the build.
  execFileSync('npm', ['run', '--silent', 'sbom'], { cwd: src, timeout: NPM_TIMEOUT, stdio: 'pipe' });
  execFileSync('npm', ['run', '--silent', 'manifest'], { cwd: src, timeout: NPM_TIMEOUT, stdio: 'pipe' });
  const packed = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', base], { cwd: src, encoding: 'utf8', timeout: NPM_TIMEOUT })) as { filename: string; files: { path: string }[] }[];
  packedFiles = (packed[0]?.files ?? []).map((f) => f.path);
  // Installed as npm installs a tarball: its `package/` folder as node_modules/toolgate, the
  // dependencies beside it in the project's node_modules.
  const project = join(base, 'project');
  mkdirSync(join(project, 'node_modules'), { recursive: true });
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name === 'toolgate' || name.startsWith('.')) continue;
    symlinkSync(join(repo, 'node_modules', name), join(project, 'node_modules', name));
  }
  execFileSync('tar', ['xzf', join(base, packed[0]?.filename ?? ''), '-C', base]);
  installed = join(project, 'node_modules', 'toolgate');
  cpSync(join(base, 'package'), installed, { recursive: true });
  shippedDigest = (JSON.parse(readFileSync(join(installed, 'dist/runtime-manifest.json'), 'utf8')) as { digest: string }).digest;
});

after(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

describe('a packed and installed package', () => {
  it('ships its runtime manifest and SBOM, and the manifest lists every shipped file', () => {
    assert.ok(packedFiles.includes('dist/runtime-manifest.json'));
    assert.ok(packedFiles.includes('dist/sbom.cdx.json'));
    const manifest = JSON.parse(readFileSync(join(installed, 'dist/runtime-manifest.json'), 'utf8')) as { files: { path: string }[] };
    const listed = new Set(manifest.files.map((f) => f.path));
    // npm's list of what it packed, less the manifest itself, is exactly the manifest's files.
    assert.deepEqual([...packedFiles].filter((p) => p !== 'dist/runtime-manifest.json').sort(), [...listed].sort());
  });

  it('the SBOM lists every runtime dependency of the lock, by name and version', () => {
    const sbom = JSON.parse(readFileSync(join(installed, 'dist/sbom.cdx.json'), 'utf8')) as { bomFormat: string; specVersion: string; components: Component[] };
    interface Component {
      readonly name: string;
      readonly group?: string;
      readonly version: string;
      readonly components?: Component[];
    }
    assert.equal(sbom.bomFormat, 'CycloneDX');
    const listed = new Set<string>();
    const walk = (cs: readonly Component[] | undefined): void => {
      for (const c of cs ?? []) {
        listed.add(`${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`);
        walk(c.components);
      }
    };
    walk(sbom.components);
    const deps = runtimeDependencies(JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')));
    assert.ok(deps.length > 50, `the lock has ${deps.length} runtime dependencies`);
    const missing = deps.filter((d) => !listed.has(`${d.name}@${d.version}`)).map((d) => `${d.name}@${d.version}`);
    assert.deepEqual(missing, []);
    // and no dev-only package (a devDependency of the lock) is in it
    assert.ok(!listed.has('typescript@5.9.3') && ![...listed].some((n) => n.startsWith('eslint@')));
  });

  it('an untouched installation verifies, and receipts name it by the shipped digest', async () => {
    const v = toolgate('version', '--verify');
    assert.equal(v.code, 0, v.out + v.err);
    assert.match(v.out, /^ok: /m);
    const plain = JSON.parse(toolgate('version', '--json').out) as { runtime_digest: string; shipped_digest: string };
    assert.equal(plain.runtime_digest, shippedDigest);
    assert.equal(plain.shipped_digest, shippedDigest);
    const url = pathToFileURL(join(installed, 'dist/src/index.js')).href;
    const ws = join(base, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'a.txt'), 'a\n');
    const receipt = JSON.parse(
      inFreshProcess(
        `const { createRuntime } = await import(${JSON.stringify(url)});
         const rt = await createRuntime({ workspace: ${JSON.stringify(ws)}, stateDir: ${JSON.stringify(join(base, 'state'))} });
         const r = await rt.call({ protocol_version: 'tool-call.v1', task_id: 'task-1', tool: 'fs.read', arguments: { path: 'a.txt' } });
         await rt.close();
         console.log(JSON.stringify(r));`,
      ),
    ) as { status: string; runtime_digest: string; host_tools: { name: string }[] };
    assert.equal(receipt.status, 'succeeded');
    assert.equal(receipt.runtime_digest, shippedDigest);
    assert.deepEqual(receipt.host_tools.map((t) => t.name), ['bwrap', 'rg', 'git', 'script', 'chromium']);
  });

  it("a tool's implementation digest is that of its built module files, and moves with a comment appended to one", () => {
    const dir = join(installed, 'dist/src/tools/fs-read');
    const files: [string, string][] = [];
    const walk = (d: string, rel: string): void => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name), rel ? `${rel}/${e.name}` : e.name);
        else if (e.name.endsWith('.js') && !e.name.endsWith('.d.js')) files.push([rel ? `${rel}/${e.name}` : e.name, createHash('sha256').update(readFileSync(join(d, e.name))).digest('hex')]);
      }
    };
    walk(dir, '');
    files.sort(([a], [b]) => (a < b ? -1 : 1));
    const before = implementationDigestOfFsRead();
    assert.equal(before, digestOf({ module_files: files }), 'the digest of the built .js files of the tool folder');
    // A comment after the last statement changes no function's text (fn.toString()), only the file.
    appendFileSync(join(dir, 'tool.js'), '\n// tampered\n');
    try {
      assert.notEqual(implementationDigestOfFsRead(), before);
    } finally {
      writeFileSync(join(dir, 'tool.js'), readFileSync(join(dir, 'tool.js'), 'utf8').replace('\n// tampered\n', ''));
    }
    assert.equal(implementationDigestOfFsRead(), before);
  });

  it('version --verify names a tampered, a removed and an added file, and a dependency off its locked version, and exits 1', () => {
    const tampered = 'dist/src/tools/shell-exec/tool.js';
    const removed = 'policies/default.cedar';
    appendFileSync(join(installed, tampered), '\n;globalThis.x = 1;\n');
    const removedPath = join(installed, removed);
    const keep = readFileSync(removedPath);
    unlinkSync(removedPath);
    writeFileSync(join(installed, 'dist/src/extra.js'), 'export {};\n');
    // a dependency installed at another version than the lock's, in the package's own node_modules
    // (the same code, so the command still starts; only its package.json says 0.0.1)
    const dep = join(installed, 'node_modules/picomatch');
    cpSync(join(repo, 'node_modules/picomatch'), dep, { recursive: true, dereference: true });
    const depPkg = JSON.parse(readFileSync(join(dep, 'package.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dep, 'package.json'), JSON.stringify({ ...depPkg, version: '0.0.1' }));
    try {
      const v = toolgate('version', '--verify');
      assert.equal(v.code, 1, v.out + v.err);
      assert.match(v.out, new RegExp(`^changed  ${tampered} `, 'm'));
      assert.match(v.out, new RegExp(`^missing  ${removed}$`, 'm'));
      assert.match(v.out, /^extra {4}dist\/src\/extra\.js$/m);
      assert.match(v.out, /^changed {2}dependency picomatch: 0\.0\.1 installed, 4\.0\.7 locked$/m);
      const json = JSON.parse(toolgate('version', '--verify', '--json').out) as { ok: boolean; digest: string; shipped: string; differences: { kind: string; path?: string }[] };
      assert.equal(json.ok, false);
      assert.notEqual(json.digest, json.shipped, 'the tampered installation has another runtime digest');
      assert.deepEqual(json.differences.map((d) => `${d.kind}:${d.path ?? ''}`).sort(), [`changed:${tampered}`, 'dependency_version:', 'extra:dist/src/extra.js', `missing:${removed}`].sort());
    } finally {
      writeFileSync(join(installed, tampered), readFileSync(join(installed, tampered), 'utf8').replace('\n;globalThis.x = 1;\n', ''));
      writeFileSync(removedPath, keep);
      unlinkSync(join(installed, 'dist/src/extra.js'));
      rmSync(join(installed, 'node_modules'), { recursive: true });
    }
    assert.equal(toolgate('version', '--verify').code, 0, 'restored, it verifies again');
  });

  it('an edited manifest does not become the new baseline: its own digest no longer matches', () => {
    const path = join(installed, 'dist/runtime-manifest.json');
    const text = readFileSync(path, 'utf8');
    const m = JSON.parse(text) as { files: { path: string; sha256: string }[] };
    const f = m.files.find((x) => x.path === 'dist/src/index.js');
    assert.ok(f);
    f.sha256 = '0'.repeat(64);
    writeFileSync(path, JSON.stringify(m));
    try {
      const v = toolgate('version', '--verify');
      assert.equal(v.code, 1);
      assert.match(v.out, /^changed {2}dist\/runtime-manifest\.json: its content digests to sha256:/m);
      assert.match(v.out, /^changed {2}dist\/src\/index\.js /m);
    } finally {
      writeFileSync(path, text);
    }
  });

  it('a package without its manifest (packed with --ignore-scripts) still runs, and --verify says it has nothing to verify against', () => {
    const path = join(installed, 'dist/runtime-manifest.json');
    const text = readFileSync(path, 'utf8');
    unlinkSync(path);
    try {
      const plain = JSON.parse(toolgate('version', '--json').out) as { runtime_digest: string; shipped_digest: string | null };
      assert.equal(plain.shipped_digest, null);
      assert.match(plain.runtime_digest, /^sha256:[0-9a-f]{64}$/);
      assert.notEqual(plain.runtime_digest, shippedDigest, 'the dependency tree is unknown: not the release digest');
      const v = toolgate('version', '--verify');
      assert.equal(v.code, 1);
      assert.match(v.err, /has no shipped manifest/);
    } finally {
      writeFileSync(path, text);
    }
  });
});
