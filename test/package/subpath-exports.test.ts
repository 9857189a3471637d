// `toolgate/protocol` and `toolgate/registry` (package.json "exports") load without the native
// and heavy dependencies the package entry pulls in. Checked the way a user imports the built
// package: a child node resolves 'toolgate/…' through node_modules, under a module-resolution
// hook that makes better-sqlite3, @cedar-policy, @ast-grep, koffi and the MCP SDK unresolvable.
// The same hook makes `import 'toolgate'` fail, which shows the hook really bites.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { tempDirs } from '../support/fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
const HEAVY = /^(better-sqlite3|@cedar-policy\/|@ast-grep\/|koffi|@modelcontextprotocol\/)/;

const HOOKS = `
const heavy = ${HEAVY.toString()};
export async function resolve(specifier, context, next) {
  if (heavy.test(specifier)) throw new Error('heavy dependency loaded: ' + specifier);
  return next(specifier, context);
}
`;

function importWithoutHeavy(dir: string, specifier: string, probe: string): { status: number | null; stdout: string; stderr: string } {
  const hooks = join(dir, 'hooks.mjs');
  const register = join(dir, 'register.mjs');
  writeFileSync(hooks, HOOKS);
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const code = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(${probe}));`;
  // cwd is the repository: 'toolgate' resolves through node_modules/toolgate to the built package
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(register).href, '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('subpath exports', () => {
  it('toolgate/protocol parses an envelope with none of the heavy dependencies resolvable', () => {
    const d = tempDirs('tg-subpath');
    try {
      const probe = "[m.parseEnvelope({ protocol_version: m.PROTOCOL_VERSION, task_id: 't', tool: 'fs.read', arguments: {} }).tool, m.TOOLGATE_VERSION, m.ERROR_CODES.includes('path_escape')]";
      const r = importWithoutHeavy(d.base, 'toolgate/protocol', probe);
      assert.equal(r.status, 0, r.stderr);
      const [tool, version, hasCode] = JSON.parse(r.stdout) as [string, string, boolean];
      assert.equal(tool, 'fs.read');
      assert.match(version, /^\d+\.\d+\.\d+/);
      assert.equal(hasCode, true);
    } finally {
      d.cleanup();
    }
  });

  it('toolgate/registry defines a tool and builds a manifest with none of them resolvable', () => {
    const d = tempDirs('tg-subpath');
    try {
      const probe = `(() => {
        const tool = m.defineTool({ name: 'demo.echo', version: '1.0.0', description: 'echo', owner: 'test', effect_class: 'read', reversible: true,
          capabilities: [], args: { '~standard': {} }, result: { '~standard': {} }, timeout_ms: 1000, max_output_bytes: 1024, cancellation: 'cooperative',
          idempotency: 'safe_to_repeat', implementation_digest: 'sha256:test', normalize: () => ({ resources: [], prepared: undefined }),
          execute: async () => ({ status: 'succeeded', result: {} }) });
        return [tool.key, typeof m.diffManifests, typeof m.Registry];
      })()`;
      const r = importWithoutHeavy(d.base, 'toolgate/registry', probe);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout), ['demo.echo@1.0.0', 'function', 'function']);
    } finally {
      d.cleanup();
    }
  });

  it('the package entry does need them: under the same hook, import "toolgate" fails', () => {
    const d = tempDirs('tg-subpath');
    try {
      const r = importWithoutHeavy(d.base, 'toolgate', 'Object.keys(m).length');
      assert.notEqual(r.status, 0);
      assert.match(r.stderr, /heavy dependency loaded: (better-sqlite3|@cedar-policy|@ast-grep|koffi|@modelcontextprotocol)/);
    } finally {
      d.cleanup();
    }
  });
});
