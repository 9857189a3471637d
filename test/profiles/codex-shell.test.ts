// Codex's shell tools through createRuntime({ profile: 'codex' }) with the real sandbox: shell
// (argv) and shell_command (script) on shell.exec in Codex's freeform exec text, and unified exec
// (exec_command + write_stdin) on shell.session: a command that ends within its yield, one that
// waits for stdin and gets it, Ctrl-C, an unknown session id, escalation refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { ProfileAnswer, ProfileRunner } from '../../src/profiles/index.js';
import { testRuntime } from '../support/fixtures.js';

describe('codex profile: shell, shell_command, exec_command and write_stdin', () => {
  let p: ProfileRunner;
  let ws = '';
  let done: () => Promise<void>;
  const call = (name: string, args: Record<string, unknown>): Promise<ProfileAnswer> => p.call(name, args, { task_id: 'codex-shell' });

  before(async () => {
    const t = await testRuntime({ profile: 'codex' });
    p = t.rt.profile as ProfileRunner;
    done = t.done;
    ws = realpathSync(t.rt.workspace.root);
    mkdirSync(join(ws, 'sub'));
  });
  after(() => done());

  it('lists apply_patch and the four shell tools under their names', () => {
    assert.deepEqual(p.tools.map((t) => t.name), ['apply_patch', 'shell', 'shell_command', 'exec_command', 'write_stdin']);
  });

  it('shell runs an argv in workdir; shell_command a script; the text is Exit code / Wall time / Output', async () => {
    const r = await call('shell', { command: ['bash', '-lc', 'pwd; echo err >&2'], workdir: join(ws, 'sub') });
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, new RegExp(`^Exit code: 0\\nWall time: \\d+\\.\\d seconds\\nOutput:\\n${join(ws, 'sub')}\\nerr\\n$`));
    const failing = await call('shell_command', { command: 'echo nope; exit 4' });
    assert.equal(failing.isError, true);
    assert.match(failing.text, /^Exit code: 4\nWall time: \d+\.\d seconds\nOutput:\nnope\n\ntoolgate: execution_failed \(receipt rcpt_\w+\)$/);
  });

  it('a timeout is named before the partial output', async () => {
    const r = await call('shell_command', { command: 'echo begun; sleep 30', timeout_ms: 1000 });
    assert.match(r.text, /^Exit code: -?\d+\nWall time: \d+\.\d seconds\nOutput:\ncommand timed out after 1000 milliseconds\nbegun\n/);
  });

  it('exec_command that ends within its yield says it exited; one that waits gets a session ID, then stdin', async () => {
    const quick = await call('exec_command', { cmd: 'echo hi', workdir: ws });
    assert.match(quick.text, /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n$/);
    const waiting = await call('exec_command', { cmd: 'read x; echo "got $x"', yield_time_ms: 300 });
    const id = /Process running with session ID (\d+)/.exec(waiting.text)?.[1];
    assert.ok(id, waiting.text);
    const answered = await call('write_stdin', { session_id: Number(id), chars: 'abc\n', yield_time_ms: 5000 });
    assert.match(answered.text, /\nProcess exited with code 0\n[\s\S]*Output:\ngot abc\n$/);
    const gone = await call('write_stdin', { session_id: Number(id), chars: '' });
    assert.match(gone.text, /^Unknown session id \d+: no process of this task runs under it/);
  });

  it('Ctrl-C through write_stdin stops the command; escalation is refused before any call', async () => {
    const waiting = await call('exec_command', { cmd: 'sleep 60', yield_time_ms: 200 });
    const id = Number(/Process running with session ID (\d+)/.exec(waiting.text)?.[1]);
    const stopped = await call('write_stdin', { session_id: id, chars: '\u0003', yield_time_ms: 5000 });
    assert.match(stopped.text, /\nProcess exited with code 130\n/);
    const escalated = await call('shell', { command: ['id'], sandbox_permissions: 'require_escalated', justification: 'why?' });
    assert.equal(escalated.receipt, null);
    assert.match(escalated.text, /^Toolgate runs every command in its sandbox: .*\ntoolgate: policy_denied$/);
  });
});
