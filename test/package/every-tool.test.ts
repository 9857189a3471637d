// One successful call of every built-in tool through the built CLI, the way a user runs it.
// The Node 22 and 24 stage (scripts/test-node-versions.mjs) runs this file too, so the native
// modules (better-sqlite3, ast-grep) and the sandbox are proven on each Node a user may run.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { builtinTools } from '../../src/tools/index.js';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

interface Receipt {
  readonly receipt_id: string;
  readonly status: string;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: string; message: string };
}

describe(`every built-in tool, one call through the built CLI (Node ${process.version})`, () => {
  it('reads, searches (ripgrep and ast-grep), writes, patches, renames, deletes, undoes, runs a sandboxed command, sends an HTTP request, pushes and fetches', async () => {
    const d = tempDirs('tg-every');
    const called = new Set<string>();
    const call = (tool: string, args: object, extra: readonly string[] = ['--task', 'every-tool']): Receipt => {
      const r = spawnSync(process.execPath, [BIN, 'call', tool, '--args', JSON.stringify(args), '--workspace', d.workspace, '--state-dir', d.state, ...extra], {
        encoding: 'utf8',
      });
      const receipt = JSON.parse(r.stdout) as Receipt;
      assert.equal(receipt.status, 'succeeded', `${tool}: ${JSON.stringify(receipt.error ?? receipt)} ${r.stderr}`);
      called.add(tool);
      return receipt;
    };
    try {
      execFileSync('git', ['init', '-q'], { cwd: d.workspace });
      mkdirSync(join(d.workspace, 'src'));
      writeFileSync(join(d.workspace, 'src/load.ts'), 'export function loadConfig(path: string) {\n  return path;\n}\n');

      assert.equal(call('fs.read', { path: 'src/load.ts', max_lines: 1 }).result?.['content'], 'export function loadConfig(path: string) {\n');
      const literal = call('fs.search', { query: 'loadConfig' });
      assert.equal(literal.result?.['engine'], 'ripgrep');
      assert.match(JSON.stringify(literal.result), /src\/load\.ts/);
      const symbol = call('fs.search', { mode: 'symbol', query: 'loadConfig' });
      assert.match(JSON.stringify(symbol.result), /src\/load\.ts/);
      const listed = call('fs.list', { path: 'src' });
      assert.equal(listed.result?.['text'], 'src/  (1 entry, depth 2)\n  load.ts  60 B');

      const written = call('fs.write', { path: 'notes.md', content: 'one\n', mode: 'create' });
      call('fs.patch', { files: [{ path: 'notes.md', edits: [{ old: 'one\n', new: 'two\n' }] }] });
      assert.equal(readFileSync(join(d.workspace, 'notes.md'), 'utf8'), 'two\n');
      call('fs.rename', { from: 'notes.md', to: 'renamed.md', overwrite: false });
      call('fs.delete', { path: 'renamed.md', recursive: false, max_entries: 1 });
      assert.equal(existsSync(join(d.workspace, 'renamed.md')), false);
      const second = call('fs.write', { path: 'undo-me.md', content: 'x\n', mode: 'create' });
      call('fs.undo', { receipt_id: second.receipt_id });
      assert.equal(existsSync(join(d.workspace, 'undo-me.md')), false);
      assert.ok(written.receipt_id);

      const sh = call('shell.exec', { argv: ['sh', '-c', 'cat src/load.ts | wc -l'] });
      const r = sh.result as { isolation: { level: string }; stdout: { preview: string } };
      assert.equal(r.isolation.level, 'bwrap');
      assert.equal(r.stdout.preview, '3\n');

      // One call is a whole task from the CLI: the session opens, runs, and ends with the runtime.
      const session = call('shell.session', { command: 'cd src && export X=1 && wc -l < load.ts' });
      const s = session.result as { cwd: string; stdout: { preview: string }; env_changes: { added: string[] } };
      assert.deepEqual([s.cwd, s.stdout.preview, s.env_changes.added], ['src', '3\n', ['X']]);

      // http.request: a server in another process (spawnSync blocks this one) on 127.0.0.2, which
      // a task of its own is granted (hosts and private_addresses) under a policy that lets Host through.
      const server = spawn(process.execPath, ['-e', "const s = require('node:http').createServer((q, a) => a.end('pong')); s.listen(0, '127.0.0.2', () => console.log(s.address().port));"], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        const [line] = (await once(server.stdout, 'data')) as [Buffer];
        writeFileSync(join(d.base, 'grant.json'), JSON.stringify({ tools: ['*'], effects: ['read'], hosts: ['127.0.0.2'], private_addresses: ['127.0.0.2'] }));
        writeFileSync(join(d.base, 'host.cedar'), 'permit (principal, action, resource is Toolgate::Host);');
        const got = call('http.request', { method: 'GET', url: `http://127.0.0.2:${line.toString().trim()}/ping` }, ['--task', 'every-tool-http', '--grant', join(d.base, 'grant.json'), '--policy', join(d.base, 'host.cedar')]);
        assert.equal(got.result?.['body'], 'pong');
      } finally {
        const exited = server.exitCode !== null || server.signalCode !== null ? Promise.resolve() : once(server, 'exit');
        server.kill('SIGKILL');
        await exited;
      }

      // git.push and git.fetch: a git daemon (inetd mode, one per connection) behind a node TCP
      // server in another process on 127.0.0.2, over a bare repository made here.
      const srv = join(d.base, 'srv');
      execFileSync('git', ['init', '-q', '--bare', join(srv, 'r.git')]);
      execFileSync('git', ['-c', 'user.email=dev@toolgate.invalid', '-c', 'user.name=Toolgate dev', 'commit', '-q', '--allow-empty', '-m', 'every tool'], { cwd: d.workspace });
      const daemonScript = `const net = require('node:net'); const { spawn } = require('node:child_process');
        const s = net.createServer((c) => { const g = spawn('git', ['daemon', '--inetd', '--export-all', '--enable=receive-pack', '--base-path=' + process.argv[1]], { stdio: ['pipe', 'pipe', 'ignore'] });
          c.pipe(g.stdin); g.stdout.pipe(c); c.on('error', () => {}); g.stdin.on('error', () => {}); });
        s.listen(0, '127.0.0.2', () => console.log(s.address().port));`;
      const daemon = spawn(process.execPath, ['-e', daemonScript, srv], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        const [line] = (await once(daemon.stdout, 'data')) as [Buffer];
        const remote = `git://127.0.0.2:${line.toString().trim()}/r.git`;
        writeFileSync(join(d.base, 'git-grant.json'), JSON.stringify({ tools: ['*'], effects: ['read', 'publish'], hosts: ['127.0.0.2'], private_addresses: ['127.0.0.2'], refs: ['refs/heads/main'] }));
        writeFileSync(join(d.base, 'git.cedar'), 'permit (principal, action, resource is Toolgate::Host);\npermit (principal, action, resource is Toolgate::Ref);');
        const flags = ['--task', 'every-tool-git', '--grant', join(d.base, 'git-grant.json'), '--policy', join(d.base, 'git.cedar')];
        assert.equal(call('git.push', { remote, ref: 'main' }, flags).result?.['outcome'], 'created');
        assert.equal((call('git.fetch', { remote, refs: ['main'] }, flags).result?.['refs'] as { tracking_ref: string }[])[0]?.tracking_ref, 'refs/remotes/fetched/main');
      } finally {
        const exited = daemon.exitCode !== null || daemon.signalCode !== null ? Promise.resolve() : once(daemon, 'exit');
        daemon.kill('SIGKILL');
        await exited;
      }

      // The browser: started (jailed Chromium, about:blank) and closed. Its other tools act on a
      // live page across calls, which one process per call cannot keep; test/tools/browser/ calls them.
      assert.match(String((call('browser.open', {}).result?.['page'] as { url: string }).url), /^about:blank$/);
      call('browser.close', {});
      const needsLivePage = new Set(['browser.snapshot', 'browser.click', 'browser.type', 'browser.select', 'browser.navigate', 'browser.download', 'browser.upload']);
      const names = new Set(builtinTools().map((t) => t.name).filter((n) => !needsLivePage.has(n)));
      assert.deepEqual([...called].sort(), [...names].sort(), 'every built-in tool was called');
    } finally {
      d.cleanup();
    }
  });
});
