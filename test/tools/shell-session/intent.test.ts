// shell.session commands carry the programs they run in their action, like shell.exec lines
// (docs/shell-intent.md), and one more entry: the session's own state (cd, PATH, functions and
// aliases of earlier runs) as unresolved. A policy that forbids a program refuses a command that
// runs it before anything of it runs; a grant that lists programs refuses every session command
// (what a persistent shell will run cannot be resolved from one command); without program rules
// commands run. A marker file shows whether a command ran at all. Real bubblewrap sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type ProgramResource, type Receipt } from '../../../src/protocol/index.js';
import { createRuntime } from '../../../src/runtime/index.js';
import { DEFAULT_POLICY_SOURCE, type TaskGrant } from '../../../src/policy/index.js';
import { createShellSession } from '../../../src/tools/shell-session/tool.js';
import { GRANT } from './rig.js';

const NO_CURL = `@id("no-curl")
forbid (principal, action, resource is Toolgate::Program) when { resource.name == "curl" };`;

async function withSession(o: { policy?: string; grant?: TaskGrant }, body: (run: (command: string) => Promise<Receipt>, ws: string) => Promise<void>): Promise<void> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-session-intent-')));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  execFileSync('git', ['init', '-q', ws]);
  const rt = await createRuntime({
    workspace: ws,
    stateDir: join(base, 'state'),
    tools: [createShellSession() as never],
    grant: o.grant ?? GRANT,
    policies: o.policy ? [DEFAULT_POLICY_SOURCE, { name: 'programs.cedar', text: o.policy }] : [DEFAULT_POLICY_SOURCE],
  });
  let seq = 0;
  try {
    await body((command) => rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'session-intent', tool: 'shell.session', arguments: { command }, idempotency_key: `k${seq++}` }), ws);
  } finally {
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
}

const programsOf = (r: Receipt): ProgramResource[] => (r.normalized_action?.resources ?? []).filter((x): x is ProgramResource => x.kind === 'program');

test('a session command names every program it runs and the session state as unresolved; without program rules it runs', async () => {
  await withSession({}, async (run, ws) => {
    const r = await run('touch ran; env A=1 timeout 5 true | cat');
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.deepEqual(
      programsOf(r).map((p) => [p.name, p.wrappers, p.unresolved]),
      [
        ['touch', [], null],
        ['true', ['env', 'timeout'], null],
        ['cat', [], null],
        ['', [], 'session_state'],
      ],
    );
    assert.equal(existsSync(join(ws, 'ran')), true);
  });
});

test('a forbidden program in a session command refuses it before it runs: in a list, a substitution, a function defined for later', async () => {
  await withSession({ policy: NO_CURL }, async (run, ws) => {
    for (const command of ['touch ran; curl -s http://127.0.0.1:9/', 'touch ran; echo "$(curl -s http://127.0.0.1:9/)"', 'touch ran; fetch() { curl -s "$1"; }']) {
      const r = await run(command);
      assert.equal(r.error?.code, 'policy_denied', `${command}: ${JSON.stringify(r.error)}`);
      assert.match(JSON.stringify(r.error?.data), /no-curl/, command);
      assert.equal(existsSync(join(ws, 'ran')), false, `${command}: nothing of it ran`);
    }
    const ok = await run('touch ran; git status --short');
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.equal(existsSync(join(ws, 'ran')), true);
  });
});

test('a grant that lists programs refuses session commands (what the persistent shell runs cannot be resolved), nothing runs; shell.exec is the tool for it', async () => {
  await withSession({ grant: { ...GRANT, programs: ['touch', 'git'] } }, async (run, ws) => {
    const r = await run('touch ran');
    assert.equal(r.status, 'denied', JSON.stringify(r));
    assert.match(JSON.stringify(r.error), /session_state/);
    assert.equal(existsSync(join(ws, 'ran')), false);
  });
});
