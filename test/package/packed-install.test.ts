// Use from any project: `npm pack`, `npm install -g` of the tarball under a temporary prefix
// (nothing global changes), then the README's commands from an unrelated project directory:
// `toolgate --version`, `doctor`, `call fs.read`, and the Claude Code / Codex server command
// answering a real MCP SDK client over stdio.
//
// Time: the install reuses npm's cache (--prefer-offline: the registry only for what the cache
// lacks) and skips install scripts; the one native module that would be compiled, better-sqlite3
// (minutes with node-gyp on a loaded machine), gets the build of the same pinned version from the
// repo's node_modules, which this Node already loads. koffi and ast-grep ship prebuilt binaries.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const REPO = join(import.meta.dirname, '../..');
const NPM_TIMEOUT_MS = 10 * 60_000;
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string; license: string; dependencies: Record<string, string> };

/** The server command of README's Claude Code line (`claude mcp add toolgate -- CMD ARGS…`), "$PWD" left for the caller. */
function readmeServerCommand(): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const line = /`claude mcp add toolgate -- ([^`]+)`/.exec(readme);
  assert.ok(line?.[1], 'README names the Claude Code command');
  return line[1].split(' ').map((a) => a.replace(/^"(.*)"$/, '$1'));
}

describe('the packed package, installed, from an unrelated project', { timeout: 15 * 60_000 }, () => {
  let base = '';
  let prefix = '';
  let project = '';
  let env: NodeJS.ProcessEnv = {};
  let files: string[] = [];

  before(() => {
    base = mkdtempSync(join(tmpdir(), 'tg-packed-'));
    prefix = join(base, 'prefix');
    project = join(base, 'some-project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), 'hello from an unrelated project\n');
    // dist/ is built before the tests run; prepare would only rebuild it.
    const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', base], { cwd: REPO, encoding: 'utf8', timeout: NPM_TIMEOUT_MS });
    const [info] = JSON.parse(packed) as { filename: string; files: { path: string }[] }[];
    assert.ok(info);
    files = info.files.map((f) => f.path);
    const install = spawnSync(
      'npm',
      ['install', '-g', '--prefix', prefix, join(base, info.filename), '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'],
      { cwd: base, encoding: 'utf8', timeout: NPM_TIMEOUT_MS },
    );
    assert.equal(install.status, 0, install.stderr);
    const installed = join(prefix, 'lib/node_modules/toolgate/node_modules/better-sqlite3');
    const built = join(REPO, 'node_modules/better-sqlite3');
    const versionOf = (dir: string): string => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
    assert.equal(versionOf(installed), versionOf(built), 'the same pinned better-sqlite3');
    cpSync(join(built, 'build'), join(installed, 'build'), { recursive: true });
    // The installed bin first on PATH, as `npm install -g` leaves it; state under the temp dir.
    env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env['PATH'] ?? ''}`, XDG_STATE_HOME: join(base, 'state') };
  });

  after(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  const toolgate = (args: string[]): { code: number | null; out: string; err: string } => {
    const r = spawnSync('toolgate', args, { cwd: project, env, encoding: 'utf8', input: '', timeout: 120_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it('the tarball carries the built code, the policies, the schemas and the LICENSE of the declared license', () => {
    for (const f of ['dist/src/cli/main.js', 'dist/src/index.js', 'dist/src/ui/web/index.html', 'policies/default.cedar', 'schemas/grant.schema.json', 'schemas/config.schema.json', 'LICENSE', 'README.md']) {
      assert.ok(files.includes(f), `${f} in ${files.length} files`);
    }
    assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('src/') || f.startsWith('node_modules/')), 'no sources or tests');
    assert.equal(pkg.license, 'Apache-2.0');
    assert.match(readFileSync(join(prefix, 'lib/node_modules/toolgate/LICENSE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004/);
    assert.ok(readdirSync(join(prefix, 'lib/node_modules/toolgate/policies')).includes('default.cedar'));
  });

  it('toolgate --version and doctor work from the project directory', () => {
    const v = toolgate(['--version']);
    assert.equal(v.code, 0, v.err);
    assert.equal(v.out.trim(), `toolgate ${pkg.version}`);
    const d = toolgate(['doctor']);
    assert.equal(d.code, 0, d.out + d.err);
    assert.match(d.out, /ok {4}sqlite/);
  });

  it('toolgate call fs.read reads the project, not the clone', () => {
    const r = toolgate(['call', 'fs.read', '--args', '{"path":"README.md"}']);
    assert.equal(r.code, 0, r.err);
    const receipt = JSON.parse(r.out) as { status: string; result: { content: string } };
    assert.equal(receipt.status, 'succeeded');
    assert.equal(receipt.result.content, 'hello from an unrelated project\n');
  });

  it("README's client command serves a real MCP client in the project", async () => {
    const [command, ...args] = readmeServerCommand().map((a) => (a === '$PWD' ? project : a));
    assert.equal(command, 'toolgate', 'the installed command, not npx');
    const transport = new StdioClientTransport({ command, args, cwd: project, env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'packed-install', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'fs_read'));
      const r = await client.callTool({ name: 'fs_read', arguments: { path: 'README.md' } });
      assert.notEqual(r.isError, true);
      const text = ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
      assert.match(text, /hello from an unrelated project/);
    } finally {
      await client.close();
    }
  });
});
