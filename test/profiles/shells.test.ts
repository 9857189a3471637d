// The profiles' shell tools on shell.session, through createRuntime({ profile }) with the real
// bubblewrap sandbox: Anthropic's bash, Claude Code's Bash and OpenHands' execute_bash keep the
// shell between calls and answer in their originals' text (shared/toolsurf: anthropic-api/bash,
// claude-code/Bash, openhands/execute_bash), each call a shell.session receipt with the
// profile's origin.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileAnswer, ProfileRunner } from '../../src/profiles/index.js';
import type { Runtime } from '../../src/index.js';
import { testRuntime } from '../support/fixtures.js';

const RECEIPT_LINE = / \(receipt rcpt_\w+\)$/;

async function profiled(profile: string): Promise<{ p: ProfileRunner; ws: string; rt: Runtime; done: () => Promise<void> }> {
  const { rt, done } = await testRuntime({ profile });
  const ws = realpathSync(rt.workspace.root);
  mkdirSync(join(ws, 'sub'));
  execFileSync('git', ['init', '-q'], { cwd: ws });
  return { p: rt.profile as ProfileRunner, ws, rt, done };
}

describe('anthropic bash', () => {
  let p: ProfileRunner;
  let ws = '';
  let done: () => Promise<void>;
  const bash = (args: Record<string, unknown>): Promise<ProfileAnswer> => p.call('bash', args, { task_id: 'anthropic-bash' });
  before(async () => ({ p, ws, done } = await profiled('anthropic')));
  after(() => done());

  it('keeps cwd and exported variables between calls; output is stdout then stderr', async () => {
    assert.deepEqual(await bash({ command: 'cd sub && export FOO=bar' }).then((r) => [r.isError, r.text]), [false, '']);
    const r = await bash({ command: 'pwd; echo $FOO; echo warn >&2' });
    assert.deepEqual([r.isError, r.text], [false, `${join(ws, 'sub')}\nbar\nwarn`]);
    assert.equal(r.receipt?.tool, 'shell.session');
    assert.equal((r.receipt as unknown as { origin: { tool: string } }).origin.tool, 'bash');
  });

  it('a failing command shows its output and exit code, then the typed code', async () => {
    const r = await bash({ command: 'ls /nonexistent-dir' });
    assert.equal(r.isError, true);
    const [first, second, third] = r.text.split('\n');
    assert.match(first ?? '', /^ls: cannot access '\/nonexistent-dir': No such file or directory$/);
    assert.equal(second, 'exit code 2');
    assert.match(third ?? '', /^toolgate: execution_failed/);
  });

  it('exit ends the shell as the reference says; restart starts a fresh one', async () => {
    const gone = await bash({ command: 'exit 3' });
    assert.equal(gone.isError, true);
    assert.match(gone.text, /^<system>tool must be restarted<\/system>\nbash has exited with returncode 3\n/);
    assert.deepEqual(await bash({ restart: true }).then((r) => [r.isError, r.text]), [false, 'tool has been restarted.']);
    const fresh = await bash({ command: 'pwd; echo "[$FOO]"' });
    assert.equal(fresh.text, `${ws}\n[]`);
  });

  it('no command: the reference\'s words, nothing called', async () => {
    const r = await bash({});
    assert.deepEqual([r.text, r.receipt], ['no command provided.\ntoolgate: invalid_arguments', null]);
  });
});

describe('claude-code Bash', () => {
  let p: ProfileRunner;
  let ws = '';
  let done: () => Promise<void>;
  const bash = (args: Record<string, unknown>): Promise<ProfileAnswer> => p.call('Bash', args, { task_id: 'claude-code-bash' });
  before(async () => ({ p, ws, done } = await profiled('claude-code')));
  after(() => done());

  it('the working directory persists; a non-zero exit reads Exit code N and the output', async () => {
    assert.equal((await bash({ command: 'cd sub', description: 'Enter sub' })).text, '');
    assert.equal((await bash({ command: 'pwd' })).text, join(ws, 'sub'));
    const r = await bash({ command: 'echo out; echo err >&2; false' });
    assert.equal(r.isError, true);
    assert.match(r.text, /^Exit code 1\nout\nerr\ntoolgate: execution_failed/);
    assert.match(r.text, RECEIPT_LINE);
  });

  it('past its timeout (ms) the command is stopped and says so', async () => {
    const r = await bash({ command: 'sleep 30', timeout: 1000 });
    assert.equal(r.isError, true);
    assert.match(r.text, /^<tool_use_error>Command timed out after 1s; it was stopped and its shell ended \(the next command starts in the workspace root\)\.<\/tool_use_error>\ntoolgate: timed_out/);
    assert.equal((await bash({ command: 'pwd' })).text, ws);
  });

  it('run_in_background: a job of the session writing to a file the next command reads', async () => {
    const r = await bash({ command: 'echo started; sleep 0.3; echo finished', run_in_background: true });
    assert.equal(r.isError, false, r.text);
    const id = /^Command running in background with ID: (bash_\d+)\. Output is being written to: (\/tmp\/tasks\/bash_\d+\.output)\./.exec(r.text);
    assert.ok(id, r.text);
    const read = await bash({ command: `for i in $(seq 1 50); do grep -q finished ${id[2]} && break; sleep 0.1; done; cat ${id[2]}` });
    assert.equal(read.text, 'started\nfinished');
  });

  it('dangerouslyDisableSandbox is refused: every command runs in the sandbox', async () => {
    const r = await bash({ command: 'id', dangerouslyDisableSandbox: true });
    assert.equal(r.receipt, null);
    assert.match(r.text, /^<tool_use_error>Permission for this action was denied: .*<\/tool_use_error>\ntoolgate: policy_denied$/);
  });
});

describe('openhands execute_bash', () => {
  let p: ProfileRunner;
  let ws = '';
  let done: () => Promise<void>;
  const exec = (args: Record<string, unknown>): Promise<ProfileAnswer> => p.call('execute_bash', { security_risk: 'LOW', ...args }, { task_id: 'openhands-bash' });
  before(async () => ({ p, ws, done } = await profiled('openhands')));
  after(() => done());

  it('a finished command: output, the completed suffix, the working directory, the exit code', async () => {
    const r = await exec({ command: 'cd sub && echo hello' });
    assert.deepEqual([r.isError, r.text], [false, `hello\n[The command completed with exit code 0.]\n[Current working directory: ${join(ws, 'sub')}]\n[Command finished with exit code 0]`]);
    const failing = await exec({ command: 'false' });
    assert.equal(failing.text, `\n[The command completed with exit code 1.]\n[Current working directory: ${join(ws, 'sub')}]\n[Command finished with exit code 1]`);
  });

  it('past its timeout the command keeps running (exit code -1); input goes to it; a new command is not executed meanwhile', async () => {
    const waiting = await exec({ command: 'read x; echo got $x', timeout: 1 });
    assert.match(waiting.text, /^\n\[The command timed out after 1 seconds\. You may wait longer to see additional output by sending empty command '', send other commands to interact with the current process, send keys \("C-c", "C-z", "C-d"\) to interrupt\/kill the previous command before sending your new command, or use the timeout parameter in execute_bash for future commands\.\]\n\[Current working directory: [^\]]+\]$/);
    const refused = await exec({ command: 'ls' });
    assert.match(refused.text, /^\[Your command "ls" is NOT executed\. The previous command is still running - You CANNOT send new commands until the previous command is completed\./);
    const answered = await exec({ command: 'yes', is_input: 'true' });
    assert.match(answered.text, /^\[Below is the output of the previous command\.\]\ngot yes\n\[The command completed with exit code 0\.\]\n\[Current working directory: [^\]]+\]\n\[Command finished with exit code 0\]$/);
  });

  it('C-c interrupts the running command and says it was sent', async () => {
    await exec({ command: 'sleep 60', timeout: 1 });
    const r = await exec({ command: 'C-c', is_input: 'true' });
    assert.match(r.text, /\n\[The command completed with exit code 130\. CTRL\+C was sent\.\]\n/);
  });

  it('nothing running: the originals\' errors for reading logs and for input', async () => {
    const logs = await exec({ command: '' });
    assert.equal(logs.isError, true);
    assert.match(logs.text, /^ERROR: No previous running command to retrieve logs from\.\ntoolgate: not_found/);
    const input = await exec({ command: 'y', is_input: 'true' });
    assert.match(input.text, /^ERROR: No previous running command to interact with\.\ntoolgate: not_found/);
  });
});
