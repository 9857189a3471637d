// The claude-code profile through the built `toolgate serve --stdio --profile claude-code` and a
// real MCP SDK client: tools/list shows Claude Code's tools (names and schemas) and nothing
// else; a small task (Glob, Grep, Read, a failing test through Bash, an ambiguous Edit refused
// in the original's words, the Edit fixed, the test passing in the same Bash session, Write)
// reads as Claude Code's text; each receipt, read back with `toolgate
// receipts`, names the profile, the original tool and the digest of the original arguments.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { digestOf, type Receipt } from '../../../src/protocol/index.js';
import { tempDirs } from '../../support/fixtures.js';

const BIN = join(import.meta.dirname, '../../../dist/src/cli/main.js');
// The facts' schema files, copied beside this test (a clean clone has no ../shared); where the
// facts are beside the repository, the copies must still equal them.
const TOOLSURF = join(import.meta.dirname, 'toolsurf');
const FACTS = join(import.meta.dirname, '../../../../shared/toolsurf/claude-code');

interface Answer {
  readonly text: string;
  readonly isError: boolean;
  readonly receiptId: string | undefined;
}

describe('claude-code profile over MCP stdio (built CLI, SDK client)', () => {
  const d = tempDirs('tg-profile-mcp');
  let ws = '';
  let client: Client;
  const calls: { name: string; args: Record<string, unknown>; receiptId: string | undefined }[] = [];

  async function call(name: string, args: Record<string, unknown>): Promise<Answer> {
    const r = await client.callTool({ name, arguments: args });
    const text = ((r.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');
    const receiptId = r._meta?.['toolgate/receipt_id'] as string | undefined;
    calls.push({ name, args, receiptId });
    return { text, isError: r.isError === true, receiptId };
  }

  before(async () => {
    ws = realpathSync(d.workspace);
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/calc.py'), 'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n');
    writeFileSync(join(ws, 'src/util.py'), 'def noop():\n    pass\n');
    writeFileSync(join(ws, 'README.md'), '# calc\n');
    utimesSync(join(ws, 'src/calc.py'), 1000, 1000);
    utimesSync(join(ws, 'src/util.py'), 2000, 2000);
    client = new Client({ name: 'profile-mcp', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'serve', '--stdio', '--profile', 'claude-code', '--workspace', ws, '--state-dir', d.state, '--task', 'cc-task'],
        stderr: 'inherit',
      }),
    );
  });

  after(async () => {
    await client.close().catch(() => {});
    d.cleanup();
  });

  it('tools/list shows the original names and schemas, and no native tool', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['Read', 'Edit', 'MultiEdit', 'Write', 'Grep', 'Glob', 'LS', 'Bash']);
    const edit = tools.find((t) => t.name === 'Edit');
    assert.deepEqual(edit?.inputSchema.required, ['file_path', 'old_string', 'new_string']);
    assert.equal((edit?.inputSchema as { additionalProperties?: unknown }).additionalProperties, false);
    assert.ok(!tools.some((t) => t.name.startsWith('fs_') || t.name.startsWith('shell_')));
  });

  it('runs a small task in the original text: Glob, Grep, Read, an ambiguous Edit, the fix, Write', async () => {
    const glob = await call('Glob', { pattern: '**/*.py' });
    assert.equal(glob.isError, false);
    // Newest first: util.py was written after calc.py (mtimes set apart, not left to the clock).
    assert.equal(glob.text, `${join(ws, 'src/util.py')}\n${join(ws, 'src/calc.py')}`);

    const grep = await call('Grep', { pattern: 'return a - b', output_mode: 'content', path: join(ws, 'src') });
    assert.equal(grep.text, `${join(ws, 'src/calc.py')}:2:    return a - b\n${join(ws, 'src/calc.py')}:6:    return a - b`);

    const read = await call('Read', { file_path: join(ws, 'src/calc.py'), offset: 1, limit: 2 });
    assert.equal(read.text, '1\tdef add(a, b):\n2\t    return a - b');

    const test = 'cd src && python3 -B -c "from calc import add; assert add(2, 3) == 5, add(2, 3)"';
    const failing = await call('Bash', { command: test, description: 'Run the add test' });
    assert.equal(failing.isError, true);
    assert.match(failing.text, /^Exit code 1\n[\s\S]*AssertionError: -1\ntoolgate: execution_failed \(receipt rcpt_\w+\)$/);

    const ambiguous = await call('Edit', { file_path: join(ws, 'src/calc.py'), old_string: '    return a - b', new_string: '    return a + b' });
    assert.equal(ambiguous.isError, true);
    assert.equal(
      ambiguous.text,
      '<tool_use_error>Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString:     return a - b</tool_use_error>\n' +
        `toolgate: ambiguous_match (receipt ${ambiguous.receiptId})`,
    );
    assert.equal(readFileSync(join(ws, 'src/calc.py'), 'utf8').includes('a + b'), false, 'nothing written');

    const fixed = await call('Edit', { file_path: join(ws, 'src/calc.py'), old_string: 'def add(a, b):\n    return a - b', new_string: 'def add(a, b):\n    return a + b' });
    assert.equal(fixed.text, `The file ${join(ws, 'src/calc.py')} has been updated successfully.`);
    assert.equal(readFileSync(join(ws, 'src/calc.py'), 'utf8'), 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n');
    // The Bash session kept its cwd (src): the same test now passes.
    const passing = await call('Bash', { command: 'python3 -B -c "from calc import add; assert add(2, 3) == 5"' });
    assert.deepEqual([passing.isError, passing.text], [false, '']);

    const unread = await call('Write', { file_path: join(ws, 'README.md'), content: '# calc\n\nAdds.\n' });
    assert.equal(unread.text, `<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>\ntoolgate: already_exists (receipt ${unread.receiptId})`);
    const created = await call('Write', { file_path: join(ws, 'tests/test_calc.py'), content: 'from src.calc import add\n' });
    assert.equal(created.text, `File created successfully at: ${join(ws, 'tests/test_calc.py')}`);
    assert.equal(readFileSync(join(ws, 'tests/test_calc.py'), 'utf8'), 'from src.calc import add\n');

    const outside = await call('Read', { file_path: '/etc/hostname' });
    assert.equal(outside.isError, true);
    assert.match(outside.text, /^<tool_use_error>Path \/etc\/hostname is outside the workspace .*<\/tool_use_error>\ntoolgate: path_escape \(receipt rcpt_/);
  });

  it('every call left a receipt naming the profile, the original tool and the digest of its arguments', () => {
    const r = spawnSync(process.execPath, [BIN, 'receipts', 'list', '--json', '--task', 'cc-task', '--state-dir', d.state, '--workspace', ws], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const receipts = new Map<string, Receipt>((JSON.parse(r.stdout) as Receipt[]).map((x) => [x.receipt_id, x]));
    assert.equal(calls.length, 10);
    const mapped: Record<string, string> = { Glob: 'fs.search', Grep: 'fs.search', Read: 'fs.read', Edit: 'fs.patch', Write: 'fs.write', Bash: 'shell.session' };
    for (const c of calls) {
      const rec = receipts.get(c.receiptId ?? '');
      assert.ok(rec, `receipt of ${c.name}`);
      assert.equal(rec.tool, mapped[c.name]);
      assert.deepEqual(rec.origin, { kind: 'profile.v1', profile: 'claude-code', tool: c.name, arguments_digest: digestOf(c.args) });
    }
    const verify = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--task', 'cc-task', '--state-dir', d.state, '--workspace', ws], { encoding: 'utf8' });
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  });

  it('the listed schemas are toolsurf\'s, x-toolsurf left out', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) {
      const file = `${t.name}.json`;
      const copy = readFileSync(join(TOOLSURF, file), 'utf8');
      if (existsSync(join(FACTS, file))) assert.equal(copy, readFileSync(join(FACTS, file), 'utf8'), `${file} is the facts' copy`);
      const { 'x-toolsurf': _facts, ...schema } = JSON.parse(copy) as Record<string, unknown>;
      assert.deepEqual(t.inputSchema, schema, t.name);
      assert.equal(t.description, schema['description']);
    }
  });
});

describe('toolgate serve --profile with an unknown name', () => {
  it('is a usage error naming the known profiles, exit 2, before anything is served', () => {
    const d = tempDirs('tg-profile-bad');
    try {
      const r = spawnSync(process.execPath, [BIN, 'serve', '--stdio', '--profile', 'nope', '--workspace', d.workspace, '--state-dir', d.state], { encoding: 'utf8', input: '' });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /^toolgate serve: usage: unknown profile "nope"; known profiles: claude-code, anthropic, openhands, codex\n/);
      assert.equal(r.stdout, '');
    } finally {
      d.cleanup();
    }
  });
});
