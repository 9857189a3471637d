// implementation_digest is the digest of the tool's module files (its folder), not of the
// functions' text: a change in a helper file counts, and two loads of the same build agree.
// Before, it hashed normalize/execute's toString(): blind to helpers, moved by formatting.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { defineTool, type ToolSpec } from '../../src/registry/index.js';
import { tempDirs } from '../support/fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
const BUILT_FS_READ = join(ROOT, 'dist/src/tools/fs-read');

function spec(module?: string | URL): ToolSpec<{ a: string }, Record<string, never>, undefined> {
  return {
    name: 'demo.echo',
    version: '1.0.0',
    description: 'demo',
    owner: 'test',
    effect_class: 'read',
    reversible: true,
    capabilities: [],
    args: z.strictObject({ a: z.string() }),
    result: z.strictObject({}),
    timeout_ms: 1000,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    ...(module === undefined ? {} : { module }),
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: () => Promise.resolve({ status: 'succeeded', result: {} }),
  };
}

/** The built-in tools' digests as a fresh node process importing the built package sees them. */
function builtDigests(): Record<string, string> {
  const code = "const m = await import('toolgate'); console.log(JSON.stringify(Object.fromEntries(m.builtinTools().map((t) => [t.key, t.implementation_digest]))));";
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' })) as Record<string, string>;
}

describe('implementation_digest', () => {
  it('is stable across two loads of the built package, and is the digest of the tool folder\'s files wherever they lie', () => {
    const first = builtDigests();
    const second = builtDigests();
    assert.deepEqual(first, second);
    assert.equal(new Set(Object.values(first)).size, Object.keys(first).length, 'each tool has its own digest');
    const d = tempDirs('tg-impl');
    try {
      cpSync(BUILT_FS_READ, join(d.base, 'fs-read'), { recursive: true });
      assert.equal(defineTool(spec(pathToFileURL(join(d.base, 'fs-read/tool.js')))).implementation_digest, first['fs.read@1.1.0']);
    } finally {
      d.cleanup();
    }
  });

  it('changes when a helper file of the tool folder changes, not for declarations, maps or other files', () => {
    const d = tempDirs('tg-impl');
    try {
      const dir = join(d.base, 'fs-read');
      cpSync(BUILT_FS_READ, dir, { recursive: true });
      const module = pathToFileURL(join(dir, 'tool.js'));
      const before = defineTool(spec(module)).implementation_digest;
      writeFileSync(join(dir, 'README.md'), 'notes\n');
      writeFileSync(join(dir, 'extra.d.ts'), 'export {};\n');
      writeFileSync(join(dir, 'tool.ts.orig'), 'x\n');
      assert.equal(defineTool(spec(module)).implementation_digest, before);
      appendFileSync(join(dir, 'file-info.js'), '\n// a helper changed\n');
      const after = defineTool(spec(module)).implementation_digest;
      assert.notEqual(after, before);
      assert.match(after, /^sha256:[0-9a-f]{64}$/);
    } finally {
      d.cleanup();
    }
  });

  it('falls back to the functions\' text without a module URL or when its files cannot be read; an explicit digest wins', () => {
    const plain = defineTool(spec()).implementation_digest;
    assert.match(plain, /^sha256:/);
    assert.equal(defineTool(spec(pathToFileURL('/nonexistent/tool.js'))).implementation_digest, plain);
    assert.equal(defineTool(spec('data:text/javascript,export{}')).implementation_digest, plain);
    assert.equal(defineTool({ ...spec(import.meta.url), implementation_digest: 'sha256:given' }).implementation_digest, 'sha256:given');
  });
});
