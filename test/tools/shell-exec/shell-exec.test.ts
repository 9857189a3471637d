import { PERMIT_ALL } from './rig.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type Digest, type Receipt } from '../../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import type { TaskGrant } from '../../../src/policy/index.js';
import { createShellExec, type ShellExecOptions } from '../../../src/tools/shell-exec/tool.js';
import type { ShellExecResult } from '../../../src/tools/shell-exec/schema.js';
import { newMarker, processesWithMarker, sleepersWithMarker, waitFor } from '../../sandbox/fixtures.js';
import { filesUnder } from '../../support/fixtures.js';

// The spine grant matches paths with globs; '.' (the workspace root) is named explicitly.
const GRANT: TaskGrant = { tools: ['*'], effects: ['read', 'write', 'execute'], read: ['**'], write: ['**'] };

interface Rig {
  readonly rt: Runtime;
  readonly workspace: string;
  readonly state: string;
  done(): Promise<void>;
}

async function rig(o: { git?: boolean; stateBase?: string; tool?: ShellExecOptions; grant?: TaskGrant; policies?: typeof PERMIT_ALL } = {}): Promise<Rig> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-shell-')));
  const workspace = join(base, 'ws');
  mkdirSync(workspace);
  const stateParent = o.stateBase ? mkdtempSync(join(o.stateBase, 'tg-state-')) : base;
  const state = join(stateParent, 'state');
  if (o.git) {
    execFileSync('git', ['init', '-q', workspace]);
    writeFileSync(join(workspace, 'tracked.txt'), 'one\n');
    execFileSync('git', ['-C', workspace, 'add', '.']);
    execFileSync('git', ['-C', workspace, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'init']);
  }
  const rt = await createRuntime({ workspace, stateDir: state, tools: [createShellExec({ graceMs: 300, ...o.tool }) as never], grant: o.grant ?? GRANT, ...(o.policies ? { policies: o.policies } : {}) });
  return {
    rt,
    workspace,
    state,
    done: async () => {
      await rt.close();
      rmSync(base, { recursive: true, force: true });
      if (o.stateBase) rmSync(stateParent, { recursive: true, force: true });
    },
  };
}

function call(args: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { protocol_version: PROTOCOL_VERSION, task_id: 'task-shell', tool: 'shell.exec', arguments: args, ...extra };
}

/** The command's result (a receipt of a command that never ran, e.g. no sandbox, fails here with its error, not later on a null). */
const resultOf = (r: Receipt): ShellExecResult => {
  assert.notEqual(r.result, null, JSON.stringify(r.error));
  return r.result as ShellExecResult;
};


test('a command runs in the sandbox and its receipt lists exit code, isolation, limits and the paths it changed', async () => {
  const r = await rig({ git: true });
  try {
    const receipt = await r.rt.call(call({ argv: ['sh', '-c', 'echo hi; echo two >> tracked.txt; echo new > added.txt'] }));
    assert.equal(receipt.status, 'succeeded', JSON.stringify(receipt.error));
    const res = resultOf(receipt);
    assert.equal(res.exit_code, 0);
    assert.equal(res.reason, 'exited');
    assert.equal(res.stdout.preview, 'hi\n');
    assert.deepEqual(res.changed_paths, ['added.txt', 'tracked.txt']);
    assert.equal(res.isolation.level, 'bwrap');
    assert.equal(res.isolation.network, 'none');
    assert.equal(res.limits.processes.enforced_by, 'cgroup');
    assert.equal(receipt.normalized_action?.effect_class, 'execute');
    assert.notEqual(res.revision, 'r0');
    // A command that changes nothing leaves the revision where it was.
    const quiet = await r.rt.call(call({ shell: 'sh', script: 'true' }));
    assert.deepEqual(resultOf(quiet).changed_paths, []);
    assert.equal(resultOf(quiet).revision, res.revision);
  } finally {
    await r.done();
  }
});

test('a nonzero exit is a failed receipt with execution_failed and the whole result', async () => {
  const r = await rig();
  try {
    const receipt = await r.rt.call(call({ shell: 'bash', script: 'echo oops >&2; exit 3' }));
    assert.equal(receipt.status, 'failed');
    assert.equal(receipt.error?.code, 'execution_failed');
    assert.equal(resultOf(receipt).exit_code, 3);
    assert.equal(resultOf(receipt).stderr.preview, 'oops\n');
  } finally {
    await r.done();
  }
});

test('aborting runtime.call gives a cancelled receipt, and no process of the command is left', async () => {
  const r = await rig({ git: true });
  try {
    const marker = newMarker();
    const ac = new AbortController();
    const pending = r.rt.call(call({ shell: 'sh', script: `trap "" TERM; setsid sleep 1000 & sleep 1001; echo ${marker}`, env: { set: { TG_MARKER: marker } } }), { signal: ac.signal });
    // Its two sleeps: bubblewrap's own command line names the marker too, before the command runs.
    await waitFor(() => sleepersWithMarker(marker).length === 2, 10_000, 'the command to start');
    ac.abort();
    const receipt = await pending;
    assert.deepEqual(processesWithMarker(marker), []);
    assert.equal(receipt.status, 'cancelled');
    assert.equal(receipt.error?.code, 'cancelled');
    assert.equal(receipt.error?.data?.['process_left'], false, 'the tool itself answered, not the runtime after the abort grace');
    assert.equal(resultOf(receipt).reason, 'cancelled');
    assert.deepEqual(resultOf(receipt).changed_paths, []);
  } finally {
    await r.done();
  }
});

test('the call deadline ends the command with reason timeout; idle_timeout_ms with idle_timeout', async () => {
  const r = await rig();
  try {
    const deadline = new Date(Date.now() + 800).toISOString();
    const wall = await r.rt.call(call({ argv: ['sleep', '30'] }, { deadline }));
    assert.equal(wall.status, 'timed_out');
    assert.equal(resultOf(wall).reason, 'timeout');
    const idle = await r.rt.call(call({ shell: 'sh', script: 'echo once; sleep 30', idle_timeout_ms: 300 }));
    assert.equal(idle.status, 'timed_out');
    assert.equal(resultOf(idle).reason, 'idle_timeout');
    assert.equal(resultOf(idle).stdout.preview, 'once\n');
  } finally {
    await r.done();
  }
});

test('a secret env value printed by the command appears nowhere in the state dir: receipt, previews, artifacts, database', async () => {
  const canary = `tgsecret-${newMarker()}`;
  const r = await rig({ tool: { hostEnv: { TG_TOKEN: canary, OTHER: 'not-passed' } } });
  try {
    const receipt = await r.rt.call(
      call({ shell: 'bash', script: 'for i in $(seq 3000); do echo "line $i $TG_TOKEN"; done; echo "$TG_TOKEN" >&2; echo "${OTHER:-unset}"', env: { secret: ['TG_TOKEN'] } }),
    );
    assert.equal(receipt.status, 'succeeded', JSON.stringify(receipt.error));
    const res = resultOf(receipt);
    assert.ok(res.stdout.artifact, 'the stream outgrew the preview');
    assert.match(res.stdout.preview, /unset\n$/, 'variables not named are not passed');
    assert.ok(!JSON.stringify(receipt).includes(canary));
    assert.match(res.stderr.preview, /\[REDACTED\]/);
    const leaking = filesUnder(r.state).filter((f) => readFileSync(f).includes(canary));
    assert.deepEqual(leaking, []);
    // Control: the artifact holds the redacted lines, so the scan did read them.
    assert.ok(r.rt.artifacts.get(res.stdout.artifact.digest as Digest).toString().includes('line 3000 [REDACTED]'));
  } finally {
    await r.done();
  }
});

test('network host raises the effect class to network, which the grant does not allow: denied, nothing spawned', async () => {
  const r = await rig();
  try {
    const marker = newMarker();
    const receipt = await r.rt.call(call({ argv: ['sleep', '5'], network: 'host', env: { set: { TG_MARKER: marker } } }));
    assert.equal(receipt.status, 'denied');
    assert.equal(receipt.error?.code, 'policy_denied');
    assert.equal(receipt.normalized_action?.effect_class, 'network');
    assert.deepEqual(processesWithMarker(marker), []);
  } finally {
    await r.done();
  }
});

test('pty runs the command on a terminal; argv with a script is invalid_arguments; a cwd escape is path_escape', async () => {
  const r = await rig();
  try {
    const pty = await r.rt.call(call({ argv: ['sh', '-c', 'test -t 1 && echo "on a tty"; exit 5'], pty: true }));
    assert.equal(pty.status, 'failed');
    assert.equal(resultOf(pty).exit_code, 5);
    assert.equal(resultOf(pty).stdout.preview, 'on a tty\r\n');
    const both = await r.rt.call(call({ argv: ['true'], shell: 'sh', script: 'true' }));
    assert.equal(both.error?.code, 'invalid_arguments');
    const escape = await r.rt.call(call({ argv: ['true'], cwd: '../..' }));
    assert.equal(escape.error?.code, 'path_escape');
  } finally {
    await r.done();
  }
});

test('collect returns workspace files as artifacts after exit; stdin text reaches the command', async () => {
  const r = await rig();
  try {
    const receipt = await r.rt.call(call({ argv: ['sh', '-c', 'cat > out/result.txt'], stdin: { text: 'from stdin' }, collect: ['out/result.txt', 'missing.txt'] }), {});
    // out/ does not exist: the command fails and collect reports what is missing.
    assert.equal(receipt.status, 'failed');
    mkdirSync(join(r.workspace, 'out'));
    const ok = await r.rt.call(call({ argv: ['sh', '-c', 'cat > out/result.txt'], stdin: { text: 'from stdin' }, collect: ['out/result.txt', 'missing.txt'] }));
    assert.equal(ok.status, 'succeeded');
    const [got, missing] = resultOf(ok).collected;
    assert.ok(got?.artifact);
    assert.equal(r.rt.artifacts.get(got.artifact.digest as Digest).toString(), 'from stdin');
    assert.equal(missing?.artifact, null);
    assert.match(missing?.error ?? '', /^not_found/);
  } finally {
    await r.done();
  }
});

test("the runtime's state dir is invisible to the command, wherever it lies", async () => {
  const r = await rig({ stateBase: '/var/tmp' });
  try {
    const receipt = await r.rt.call(call({ shell: 'sh', script: `ls -A ${r.state}; cat ${r.state}/toolgate.db` }));
    assert.equal(receipt.status, 'failed');
    assert.match(resultOf(receipt).stderr.preview, /No such file or directory/);
    assert.equal(resultOf(receipt).stdout.preview, '', 'an empty folder stands where the state dir is');
    assert.ok(readdirSync(r.state).includes('toolgate.db'), 'control: the database is there on the host');
  } finally {
    await r.done();
  }
});

test('with workspaceWrite false the workspace is read-only and the action asks only to read it', async () => {
  const r = await rig({ tool: { workspaceWrite: false } });
  try {
    const receipt = await r.rt.call(call({ shell: 'sh', script: 'echo x > f' }));
    assert.equal(receipt.status, 'failed');
    assert.equal(resultOf(receipt).isolation.workspace, 'read-only');
    // The workspace is asked for reading only; the write the line attempts is named as what it is.
    assert.deepEqual(
      receipt.normalized_action?.resources.filter((x) => x.kind === 'path' && x.access === 'write'),
      [{ kind: 'path', path: 'f', access: 'write' }],
    );
    assert.ok(receipt.normalized_action?.resources.some((x) => x.kind === 'path' && x.path === '.' && x.access === 'read'));
  } finally {
    await r.done();
  }
});

test('a grant without write binds the workspace read-only, and the action says so', async () => {
  const r = await rig({ grant: { tools: ['*'], effects: ['read', 'execute'], read: ['**'], write: [] } });
  try {
    writeFileSync(join(r.workspace, 'kept.txt'), 'kept\n');
    // A literal redirection into kept.txt is a write the grant does not cover: refused before it runs.
    const named = await r.rt.call(call({ shell: 'sh', script: 'cat kept.txt; echo x > kept.txt' }));
    assert.equal(named.error?.code, 'policy_denied', JSON.stringify(named.error));
    // A target computed at run time names no path: the read-only binding stops it.
    const receipt = await r.rt.call(call({ shell: 'sh', script: 'cat kept.txt; f=kept.txt; echo x > "$f"' }));
    assert.equal(receipt.status, 'failed', JSON.stringify(receipt.error));
    assert.equal(resultOf(receipt).isolation.workspace, 'read-only');
    assert.match(resultOf(receipt).stdout.preview, /kept/);
    assert.deepEqual(
      receipt.normalized_action?.resources.filter((x) => x.kind === 'path' && x.path === '.' && x.access !== 'execute'),
      [{ kind: 'path', path: '.', access: 'read' }],
    );
    assert.equal(readFileSync(join(r.workspace, 'kept.txt'), 'utf8'), 'kept\n');
  } finally {
    await r.done();
  }
});

test('without bubblewrap the receipt is isolation_unavailable and nothing runs; allowed process isolation is recorded as such', async () => {
  const strict = await rig({ tool: { bwrapPath: null } });
  try {
    const marker = newMarker();
    const receipt = await strict.rt.call(call({ argv: ['sleep', '5'], env: { set: { TG_MARKER: marker } } }));
    assert.equal(receipt.status, 'failed');
    assert.equal(receipt.error?.code, 'isolation_unavailable');
    assert.deepEqual(processesWithMarker(marker), []);
  } finally {
    await strict.done();
  }
  const weak = await rig({ tool: { bwrapPath: null, allowProcessIsolation: true } });
  try {
    const receipt = await weak.rt.call(call({ argv: ['true'] }));
    assert.equal(receipt.status, 'succeeded');
    assert.equal(resultOf(receipt).isolation.level, 'process');
  } finally {
    await weak.done();
  }
});

test('a writable workspace still keeps git hooks, git config and toolgate.config.json read-only', async () => {
  // Policy lets every line through: the default refuses the redirection into .git before it runs.
  const r = await rig({ git: true, policies: PERMIT_ALL });
  try {
    writeFileSync(join(r.workspace, 'toolgate.config.json'), '{}');
    const script = [
      'echo "#!/bin/sh" > .git/hooks/pre-commit',
      'git config core.hooksPath /tmp/evil',
      'echo "{\\"state_dir\\":\\"/tmp\\"}" > toolgate.config.json',
      'echo ok > allowed.txt',
    ].join('; ');
    const receipt = await r.rt.call(call({ shell: 'sh', script }));
    assert.equal(resultOf(receipt).isolation.workspace, 'read-write');
    assert.equal(readFileSync(join(r.workspace, 'allowed.txt'), 'utf8'), 'ok\n', 'control: the workspace is writable');
    assert.ok(!readdirSync(join(r.workspace, '.git', 'hooks')).includes('pre-commit'));
    assert.doesNotMatch(readFileSync(join(r.workspace, '.git', 'config'), 'utf8'), /hooksPath/);
    assert.equal(readFileSync(join(r.workspace, 'toolgate.config.json'), 'utf8'), '{}');
  } finally {
    await r.done();
  }
});

test('another run\'s placeholder for an absent toolgate.config.json, seen by one status and not the other, is not a changed path', async () => {
  const r = await rig({ git: true });
  try {
    const marker = newMarker();
    // A holds the placeholder for its run's length; B's status before sees it, B's status after not.
    const a = r.rt.call(call({ argv: ['sh', '-c', 'sleep 1'], env: { set: { TG_MARKER: marker } } }, { idempotency_key: `a-${marker}` }));
    await waitFor(() => sleepersWithMarker(marker).length === 1, 20_000, 'run A to start');
    assert.ok(readdirSync(r.workspace).includes('toolgate.config.json'), 'A holds a placeholder');
    const b = await r.rt.call(call({ argv: ['sh', '-c', 'sleep 3'] }, { idempotency_key: `b-${marker}` }));
    assert.equal((await a).status, 'succeeded');
    assert.equal(b.status, 'succeeded', JSON.stringify(b.error));
    assert.deepEqual(resultOf(b).changed_paths, []);
    assert.ok(!readdirSync(r.workspace).includes('toolgate.config.json'), 'the placeholder is gone with A');
  } finally {
    await r.done();
  }
});

test("the status after a command reads the work tree once the command has ended; a sandbox held past the status timeout is read afresh", async () => {
  // The status after's sandbox is set up while the command runs and held until it ends: a change
  // made at the command's last moment is in changed_paths. With a timeout shorter than the
  // command, the held one is stopped first, and a fresh status reads the change.
  const r = await rig({ git: true, tool: { statusTimeoutMs: 2_000 } });
  try {
    const late = await r.rt.call(call({ argv: ['sh', '-c', 'sleep 0.5; echo x > late.txt; echo y >> tracked.txt'] }));
    assert.equal(late.status, 'succeeded', JSON.stringify(late.error));
    assert.deepEqual(resultOf(late).changed_paths, ['late.txt', 'tracked.txt']);
    const long = await r.rt.call(call({ argv: ['sh', '-c', 'sleep 4; echo z > later.txt'] }));
    assert.equal(long.status, 'succeeded', JSON.stringify(long.error));
    assert.deepEqual(resultOf(long).changed_paths, ['later.txt']);
  } finally {
    await r.done();
  }
});
