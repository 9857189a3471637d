// Each profile through the built `toolgate serve --stdio --profile NAME` and a real MCP SDK
// client, on a small task as an agent of that kind would do it: view the file, search it, an
// edit refused as ambiguous in the original's words, a failing test command, the fix, the
// passing command. Then every receipt, read back with `toolgate receipts list`, names the
// profile, the original tool and the digest of the arguments as sent, and `audit verify` passes.
// (claude-code's own task is test/profiles/claude-code/mcp-task.test.ts.)
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { digestOf, type Receipt } from '../../src/protocol/index.js';
import { tempDirs } from '../support/fixtures.js';

const BIN = join(import.meta.dirname, '../../dist/src/cli/main.js');
const CALC = 'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n';
const FIXED = 'def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n';
const TEST = 'python3 -B -c "from calc import add; assert add(2, 3) == 5, add(2, 3)"';

interface Answer {
  readonly text: string;
  readonly isError: boolean;
}

type Step = (call: (name: string, args: Record<string, unknown>) => Promise<Answer>, ws: string) => Promise<void>;

interface ProfileTask {
  readonly profile: string;
  readonly tools: readonly string[];
  /** Toolgate tool each original tool maps onto (an original may map onto several). */
  readonly mapped: Readonly<Record<string, readonly string[]>>;
  readonly steps: Step;
}

const TASKS: readonly ProfileTask[] = [
  {
    profile: 'anthropic',
    tools: ['str_replace_based_edit_tool', 'str_replace_editor', 'bash'],
    mapped: { str_replace_based_edit_tool: ['fs.read', 'fs.patch'], bash: ['shell.session'] },
    async steps(call, ws) {
      const view = await call('str_replace_based_edit_tool', { command: 'view', path: join(ws, 'calc.py') });
      assert.equal(view.text, `Here's the result of running \`cat -n\` on ${join(ws, 'calc.py')}:\n     1\tdef add(a, b):\n     2\t    return a - b\n     3\t\n     4\t\n     5\tdef sub(a, b):\n     6\t    return a - b\n     7\t\n`);
      assert.equal((await call('bash', { command: 'grep -n "def add" calc.py' })).text, '1:def add(a, b):');
      const failing = await call('bash', { command: TEST });
      assert.equal(failing.isError, true);
      assert.match(failing.text, /AssertionError: -1\nexit code 1\ntoolgate: execution_failed \(receipt rcpt_\w+\)$/);
      const ambiguous = await call('str_replace_based_edit_tool', { command: 'str_replace', path: join(ws, 'calc.py'), old_str: '    return a - b', new_str: '    return a + b' });
      assert.match(ambiguous.text, /^No replacement was performed\. Multiple occurrences of old_str ` {4}return a - b` in lines \[2, 6\]\. Please ensure it is unique\ntoolgate: ambiguous_match/);
      const fixed = await call('str_replace_based_edit_tool', { command: 'str_replace', path: join(ws, 'calc.py'), old_str: 'def add(a, b):\n    return a - b', new_str: 'def add(a, b):\n    return a + b' });
      assert.match(fixed.text, /^The file .*calc\.py has been edited\. /);
      const passing = await call('bash', { command: TEST });
      assert.deepEqual([passing.isError, passing.text], [false, '']);
    },
  },
  {
    profile: 'openhands',
    tools: ['execute_bash', 'str_replace_editor'],
    mapped: { str_replace_editor: ['fs.read', 'fs.patch'], execute_bash: ['shell.session'] },
    async steps(call, ws) {
      const risk = { security_risk: 'LOW' };
      const view = await call('str_replace_editor', { command: 'view', path: join(ws, 'calc.py'), view_range: [1, 2], ...risk });
      assert.equal(view.text, `Here's the result of running \`cat -n\` on ${join(ws, 'calc.py')}:\n     1\tdef add(a, b):\n     2\t    return a - b\n`);
      const grep = await call('execute_bash', { command: 'grep -n "def add" calc.py', ...risk });
      assert.equal(grep.text, `1:def add(a, b):\n[The command completed with exit code 0.]\n[Current working directory: ${ws}]\n[Command finished with exit code 0]`);
      const failing = await call('execute_bash', { command: TEST, ...risk });
      assert.match(failing.text, /AssertionError: -1\n\[The command completed with exit code 1\.\]\n\[Current working directory: [^\]]+\]\n\[Command finished with exit code 1\]$/);
      const ambiguous = await call('str_replace_editor', { command: 'str_replace', path: join(ws, 'calc.py'), old_str: '    return a - b', new_str: '    return a + b', ...risk });
      assert.match(ambiguous.text, /^ERROR:\nNo replacement was performed\. Multiple occurrences of old_str ` {4}return a - b` in lines \[2, 6\]\. Please ensure it is unique\.\ntoolgate: ambiguous_match/);
      const fixed = await call('str_replace_editor', { command: 'str_replace', path: join(ws, 'calc.py'), old_str: 'def add(a, b):\n    return a - b', new_str: 'def add(a, b):\n    return a + b', ...risk });
      assert.equal(fixed.isError, false, fixed.text);
      const passing = await call('execute_bash', { command: TEST, ...risk });
      assert.match(passing.text, /^\n\[The command completed with exit code 0\.\]\n/);
    },
  },
  {
    profile: 'codex',
    tools: ['apply_patch', 'shell', 'shell_command', 'exec_command', 'write_stdin'],
    mapped: { apply_patch: ['fs.patch'], shell: ['shell.exec', 'fs.patch'], shell_command: ['shell.exec'], exec_command: ['shell.session'] },
    async steps(call, ws) {
      const view = await call('shell', { command: ['bash', '-lc', 'sed -n 1,2p calc.py'], workdir: ws });
      assert.match(view.text, /^Exit code: 0\nWall time: \d+\.\d seconds\nOutput:\ndef add\(a, b\):\n {4}return a - b\n$/);
      const search = await call('shell_command', { command: 'grep -n "return a - b" calc.py', workdir: ws });
      assert.match(search.text, /Output:\n2: {4}return a - b\n6: {4}return a - b\n$/);
      const failing = await call('exec_command', { cmd: TEST, workdir: ws });
      assert.match(failing.text, /\nProcess exited with code 1\n[\s\S]*AssertionError: -1\n$/);
      // The chunk's lines are at two places and no @@ line chooses: refused, nothing written.
      const ambiguous = await call('apply_patch', { input: '*** Begin Patch\n*** Update File: calc.py\n@@\n-    return a - b\n+    return a + b\n*** End Patch' });
      assert.match(ambiguous.text, /^Failed to find expected lines in calc\.py:\n {4}return a - b\n/);
      assert.match(ambiguous.text, /\ntoolgate: ambiguous_match/);
      const fixed = await call('apply_patch', { input: '*** Begin Patch\n*** Update File: calc.py\n@@ def add(a, b):\n-    return a - b\n+    return a + b\n*** End Patch' });
      assert.deepEqual([fixed.isError, fixed.text], [false, 'Success. Updated the following files:\nM calc.py\n']);
      const passing = await call('exec_command', { cmd: TEST, workdir: ws });
      assert.match(passing.text, /\nProcess exited with code 0\n/);
    },
  },
];

for (const t of TASKS) {
  describe(`${t.profile} profile over MCP stdio (built CLI, SDK client): a small task`, () => {
    it('lists the original tools, runs the task in the original text, and leaves receipts with the origin', { timeout: 120_000 }, async () => {
      const d = tempDirs(`tg-${t.profile}-mcp`);
      const ws = realpathSync(d.workspace);
      writeFileSync(join(ws, 'calc.py'), CALC);
      execFileSync('git', ['init', '-q'], { cwd: ws });
      const task = `${t.profile}-task`;
      const client = new Client({ name: `${t.profile}-mcp`, version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve', '--stdio', '--profile', t.profile, '--workspace', ws, '--state-dir', d.state, '--task', task], stderr: 'inherit' }),
      );
      const calls: { name: string; args: Record<string, unknown>; receiptId: string | undefined }[] = [];
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((x) => x.name), t.tools);
        await t.steps(async (name, args) => {
          const r = await client.callTool({ name, arguments: args });
          calls.push({ name, args, receiptId: r._meta?.['toolgate/receipt_id'] as string | undefined });
          return { text: ((r.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('\n'), isError: r.isError === true };
        }, ws);
      } finally {
        await client.close();
      }
      assert.equal(readFileSync(join(ws, 'calc.py'), 'utf8'), FIXED);
      const listed = spawnSync(process.execPath, [BIN, 'receipts', 'list', '--json', '--task', task, '--state-dir', d.state, '--workspace', ws], { encoding: 'utf8' });
      assert.equal(listed.status, 0, listed.stderr);
      const receipts = new Map<string, Receipt>((JSON.parse(listed.stdout) as Receipt[]).map((x) => [x.receipt_id, x]));
      for (const c of calls) {
        // A patch whose place the mapping cannot choose is refused before its call (its reads are receipts).
        if (c.receiptId === undefined && c.name === 'apply_patch') continue;
        const rec = receipts.get(c.receiptId ?? '');
        assert.ok(rec, `a receipt for ${c.name} ${JSON.stringify(c.args)}`);
        assert.ok(t.mapped[c.name]?.includes(rec.tool), `${c.name} → ${rec.tool}`);
        assert.deepEqual(rec.origin, { kind: 'profile.v1', profile: t.profile, tool: c.name, arguments_digest: digestOf(c.args) });
      }
      // Follow-up reads are receipts of their own, with the same origin.
      assert.ok([...receipts.values()].filter((x) => x.origin?.profile === t.profile).length > calls.length, 'the snippets after edits were read through the pipeline too');
      const verify = spawnSync(process.execPath, [BIN, 'audit', 'verify', '--task', task, '--state-dir', d.state, '--workspace', ws], { encoding: 'utf8' });
      assert.equal(verify.status, 0, verify.stdout + verify.stderr);
      d.cleanup();
    });
  });
}
