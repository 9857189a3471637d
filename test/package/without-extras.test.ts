// The main job on the embedded defaults alone: with bubblewrap and ripgrep absent (hidden in a
// private mount namespace), the built `toolgate serve --stdio` still serves. shell_exec refuses
// with isolation_unavailable and a text that names the package and its install command;
// fs_search answers from its built-in engine and says so.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { tempDirs } from '../support/fixtures.js';
import { withoutPrograms } from '../support/hidden-programs.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');

function textOf(r: { content?: unknown }): string {
  return ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
}

describe('serve without bubblewrap and ripgrep', () => {
  it('the programs really are absent inside the namespace (and present outside it)', () => {
    const d = tempDirs('tg-noextras');
    try {
      const probe = 'for p in bwrap rg; do if command -v $p >/dev/null || [ -e /usr/bin/$p ]; then echo "found $p"; fi; done; echo done';
      const [cmd, args] = withoutPrograms(['bwrap', 'rg'], ['sh', '-c', probe], join(d.base, 'hide'));
      assert.equal(execFileSync(cmd, args, { encoding: 'utf8' }).trim(), 'done');
      assert.match(execFileSync('sh', ['-c', probe], { encoding: 'utf8' }), /found bwrap[\s\S]*found rg/);
    } finally {
      d.cleanup();
    }
  });

  it('shell_exec names the missing package and its install command; fs_search runs on the JavaScript engine', async () => {
    const d = tempDirs('tg-noextras');
    try {
      mkdirSync(join(d.workspace, 'src'));
      writeFileSync(join(d.workspace, 'src/a.ts'), 'export const needle = 1;\n');
      writeFileSync(join(d.workspace, 'b.txt'), 'no match here\nneedle again\n');
      const [command, args] = withoutPrograms(
        ['bwrap', 'rg'],
        [process.execPath, BIN, 'serve', '--stdio', '--workspace', d.workspace, '--state-dir', d.state, '--task', 'no-extras'],
        join(d.base, 'hide'),
      );
      const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
      const client = new Client({ name: 'no-extras', version: '1.0.0' });
      await client.connect(transport);
      try {
        const sh = await client.callTool({ name: 'shell_exec', arguments: { argv: ['echo', 'hi'] } });
        assert.equal(sh.isError, true);
        const text = textOf(sh);
        assert.match(text, /isolation_unavailable/);
        assert.match(text, /bubblewrap/);
        assert.match(text, /apt-get install -y bubblewrap/);

        const found = await client.callTool({ name: 'fs_search', arguments: { query: 'needle', mode: 'literal' } });
        assert.notEqual(found.isError, true, textOf(found));
        const s = found.structuredContent as { engine: string; matches?: unknown[] };
        assert.equal(s.engine, 'javascript');
        assert.match(JSON.stringify(s), /src\/a\.ts/);
        assert.match(JSON.stringify(s), /b\.txt/);
      } finally {
        await client.close();
      }
    } finally {
      d.cleanup();
    }
  });
});
