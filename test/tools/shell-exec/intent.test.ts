// shell.exec through the whole pipeline with the programs of its line in the action: policy
// refuses a line by any program it runs (wrapped, substituted, renamed), or by a file its
// redirections name, before anything runs; a marker file shows whether the line ran at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTOCOL_VERSION, type ProgramResource, type Receipt } from '../../../src/protocol/index.js';
import { createRuntime, type Runtime } from '../../../src/runtime/index.js';
import { DEFAULT_POLICY_SOURCE, type TaskGrant } from '../../../src/policy/index.js';
import { createShellExec } from '../../../src/tools/shell-exec/tool.js';
import { GRANT } from './rig.js';

const NO_CURL_NO_PUSH = `@id("no-curl")
forbid (principal, action, resource is Toolgate::Program) when { resource.name == "curl" };
@id("no-git-push")
forbid (principal, action, resource is Toolgate::Program) when { resource.name == "git" && resource.args.contains("push") };`;

async function withRuntime(o: { policy?: string; grant?: TaskGrant }, body: (run: (script: string) => Promise<Receipt>, ws: string, rt: Runtime) => Promise<void>): Promise<void> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'tg-intent-rt-')));
  const ws = join(base, 'ws');
  mkdirSync(ws);
  execFileSync('git', ['init', '-q', ws]);
  writeFileSync(join(ws, '.env'), 'API_TOKEN=sk-live-0123456789abcdef0123456789abcdef\n');
  const rt: Runtime = await createRuntime({
    workspace: ws,
    stateDir: join(base, 'state'),
    tools: [createShellExec({ graceMs: 300 }) as never],
    grant: o.grant ?? GRANT,
    policies: o.policy ? [DEFAULT_POLICY_SOURCE, { name: 'programs.cedar', text: o.policy }] : [DEFAULT_POLICY_SOURCE],
  });
  let seq = 0;
  try {
    await body((script) => rt.call({ protocol_version: PROTOCOL_VERSION, task_id: 'intent', tool: 'shell.exec', arguments: { shell: 'bash', script }, idempotency_key: `k${seq++}` }), ws, rt);
  } finally {
    await rt.close();
    rmSync(base, { recursive: true, force: true });
  }
}

const programsOf = (r: Receipt): ProgramResource[] => (r.normalized_action?.resources ?? []).filter((x): x is ProgramResource => x.kind === 'program');

test('the action names every program of the line; a line the policy does not restrict runs', async () => {
  await withRuntime({}, async (run) => {
    const r = await run('touch ran; env A=1 timeout 5 true && echo "$(date +%s)" | cat > /dev/null');
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.deepEqual(programsOf(r).map((p) => [p.name, p.wrappers]), [['touch', []], ['true', ['env', 'timeout']], ['date', []], ['cat', []]]);
  });
});

test('a forbidden program anywhere in the line refuses the whole line before it runs: compound, substituted, wrapped, sh -c, renamed copy', async () => {
  await withRuntime({ policy: NO_CURL_NO_PUSH }, async (run, ws) => {
    copyFileSync('/usr/bin/curl', join(ws, 'fetcher'));
    chmodSync(join(ws, 'fetcher'), 0o755);
    const lines = [
      'touch ran; curl -s http://127.0.0.1:9/',
      'touch ran; echo "$(curl -s http://127.0.0.1:9/)"',
      'touch ran; env -i timeout 5 nice curl http://127.0.0.1:9/',
      "touch ran; bash -c 'c\"ur\"l http://127.0.0.1:9/'",
      'touch ran; ./fetcher http://127.0.0.1:9/',
      'touch ran; git status && git push origin main',
      'touch ran; echo x | xargs curl',
    ];
    for (const line of lines) {
      const r = await run(line);
      assert.equal(r.error?.code, 'policy_denied', `${line}: ${JSON.stringify(r.error)}`);
      assert.ok(r.error?.data && JSON.stringify(r.error.data).match(/no-curl|no-git-push/), line);
      assert.equal(existsSync(join(ws, 'ran')), false, `${line}: nothing of the line ran`);
    }
    const ok = await run('touch ran; git status --short');
    assert.equal(ok.status, 'succeeded', JSON.stringify(ok.error));
    assert.equal(existsSync(join(ws, 'ran')), true);
  });
});

test('a redirection is a path resource: into .git or from a secret path the default policy refuses it before it runs', async () => {
  await withRuntime({}, async (run, ws) => {
    for (const line of ['touch ran; echo "#!/bin/sh" > .git/hooks/pre-commit', 'touch ran; cat < .env', 'touch ran; cat .env > copy.txt < .env']) {
      const r = await run(line);
      assert.equal(r.error?.code, 'policy_denied', `${line}: ${JSON.stringify(r.error)}`);
      assert.equal(existsSync(join(ws, 'ran')), false, line);
    }
    const w = await run('echo x > out.txt');
    assert.equal(w.status, 'succeeded', JSON.stringify(w.error));
    assert.ok(w.normalized_action?.resources.some((x) => x.kind === 'path' && x.path === 'out.txt' && x.access === 'write'));
  });
});

test('a grant naming programs refuses what cannot be resolved (a command from a variable, eval of a variable, source) and any other program; without the list they run', async () => {
  await withRuntime({ grant: { ...GRANT, programs: ['touch', 'git', 'true'] } }, async (run, ws) => {
    for (const line of ['touch ran; C=true; $C', 'touch ran; X=true; eval "$X"', 'touch ran; source ./x.sh', 'touch ran; ls']) {
      const r = await run(line);
      assert.equal(r.error?.code, 'policy_denied', `${line}: ${JSON.stringify(r.error)}`);
      assert.ok(JSON.stringify(r.error?.data).includes('grant.programs'), line);
      assert.equal(existsSync(join(ws, 'ran')), false, line);
    }
    assert.equal((await run('touch ran; git status --short; true')).status, 'succeeded');
  });
  await withRuntime({}, async (run) => {
    const r = await run('C=true; $C');
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.deepEqual(programsOf(r).map((p) => p.unresolved), ['dynamic_command_name']);
  });
});

test('an approval binds the line as parsed: the same commands spelled differently reuse it; another operator, argument or command list needs its own', async () => {
  const ASK_MAKE = `@id("make-asks")
@approval("required")
permit (principal, action, resource is Toolgate::Program) when { resource.name == "make" };`;
  await withRuntime({ policy: ASK_MAKE }, async (run, ws, rt) => {
    writeFileSync(join(ws, 'Makefile'), 'all:\n\t@touch made\n');
    const first = await run('true && make all');
    assert.equal(first.error?.code, 'approval_required', JSON.stringify(first.error));
    const approvalOf = (r: Receipt): string | undefined => (r.error?.data as { approval_id?: string } | undefined)?.approval_id;
    const id = approvalOf(first);
    assert.ok(id, JSON.stringify(first.error));
    assert.equal(existsSync(join(ws, 'made')), false, 'nothing ran before the approval');
    await rt.approvals.approve(id, 'alice', Date.now());
    for (const spelled of ['true && make all', 'true&&make "all"', "true && \\\nmake 'all' # comment"]) {
      const r = await run(spelled);
      assert.equal(r.status, 'succeeded', `${spelled}: ${JSON.stringify(r.error)}`);
      assert.deepEqual(r.decision?.determining, [`approval:${id}`], spelled);
    }
    for (const other of ['true || make all', 'true && make all install', 'make all && true', 'true && make all > log.txt']) {
      const r = await run(other);
      assert.equal(r.error?.code, 'approval_required', `${other}: ${JSON.stringify(r.error)}`);
      assert.ok(approvalOf(r) && approvalOf(r) !== id, other);
    }
  });
});
