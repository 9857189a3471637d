import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { ToolgateError } from '../../src/protocol/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { filesUnder, tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';
import { openHarness, type Harness } from './support.js';

describe('upstream tools through the pipeline (a real McpServer under bubblewrap)', () => {
  let h: Harness;
  before(async () => {
    h = await openHarness();
  });
  after(async () => {
    await h?.done();
  });

  it('lists the manifested tools as UPSTREAM.tool and refuses the one without a manifest', () => {
    const names = h.rt.registry.current().map((t) => t.name).filter((n) => n.startsWith('issues.'));
    assert.deepEqual(names, ['issues.create_issue', 'issues.find_issue', 'issues.hang', 'issues.list_issues', 'issues.probe']);
    const status = h.rt.gateway?.status()[0];
    assert.deepEqual(status?.refused, ['big', 'echo']);
  });

  it('a manifested read: the repository argument is a normalized Toolgate::Resource, allowed without approval', async () => {
    const r = await h.call('t-read', 'issues.list_issues', { repo: '  Acme/App ' });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.deepEqual(r.normalized_action?.resources, [{ kind: 'resource', system: 'issues', type: 'repository', id: 'acme/app', access: 'read' }]);
    assert.match(String(r.normalized_action?.tool_digest), /^sha256:/);
    assert.deepEqual((r.result as { structured: unknown }).structured, { issues: [] });
  });

  it('a manifested send: asks for approval, then runs once with the derived idempotency key; the same key again replays', async () => {
    const args = { repo: 'acme/app', title: 'first' };
    const asked = await h.call('t-send', 'issues.create_issue', args, { idempotency_key: 'issue-1' });
    assert.equal(asked.error?.code, 'approval_required');
    assert.ok(asked.decision?.determining.includes('default.irreversible-needs-approval'));
    assert.equal(h.effects().length, 0, 'nothing sent before the approval');
    const ran = await h.approved('t-send', 'issues.create_issue', args, { idempotency_key: 'issue-1' });
    assert.equal(ran.status, 'succeeded', JSON.stringify(ran.error));
    const key = (ran.result as { idempotency_key: string }).idempotency_key;
    assert.match(key, /^tg-[0-9a-f]{40}$/);
    assert.deepEqual(h.effects(), [{ id: 1, repo: 'acme/app', title: 'first', key }]);
    const again = await h.call('t-send', 'issues.create_issue', args, { idempotency_key: 'issue-1' });
    assert.equal(again.replay, true);
    assert.equal(h.effects().length, 1);
  });

  it('a model-supplied value of the idempotency argument is replaced by the derived key', async () => {
    const r = await h.approved('t-key', 'issues.create_issue', { repo: 'acme/app', title: 'k', key: 'chosen-by-model' }, { idempotency_key: 'issue-k' });
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.ok(!h.effects().some((e) => e['key'] === 'chosen-by-model'));
  });

  it('an unmanifested tool is unknown under "refuse"', async () => {
    const r = await h.call('t-echo', 'issues.echo', { text: 'hi' });
    assert.equal(r.error?.code, 'unknown_tool');
  });

  it('the server runs sandboxed: no workspace, no state dir, no network; its data dir is its own', async () => {
    writeFileSync(join(h.workspace, 'in-workspace.txt'), 'x');
    const server = createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const probe = async (path: string): Promise<{ exists: boolean; connected: boolean }> => {
        const r = await h.call('t-probe', 'issues.probe', { path, host: '127.0.0.1', port });
        assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
        return (r.result as { structured: { exists: boolean; connected: boolean } }).structured;
      };
      assert.deepEqual(await probe(join(h.workspace, 'in-workspace.txt')), { exists: false, connected: false });
      // Hidden as an empty tmpfs: the directory is there, nothing in it.
      const stateFile = filesUnder(h.state)[0] ?? assert.fail('the state dir holds files');
      assert.equal((await probe(stateFile)).exists, false);
      assert.equal((await probe(join(h.data, 'starts.log'))).exists, true);
      // The same probe from here reaches the listener: the refusal above is the sandbox's.
      const here = await new Promise<boolean>((resolve) => connect({ host: '127.0.0.1', port }, function (this: Socket) { this.destroy(); resolve(true); }).on('error', () => resolve(false)));
      assert.equal(here, true);
    } finally {
      server.close();
    }
  });

  it('close ends the server and every process it started, and removes nothing of a configured data dir', async () => {
    assert.ok(h.processes().length > 0, 'the server runs in its data dir');
    const other = await openHarness();
    const pids = other.processes();
    assert.ok(pids.length > 0);
    await other.rt.close();
    assert.ok(await waitFor(() => other.processes().length === 0, 10_000), `left: ${other.processes().join(',')}`);
    await other.done();
  });
});

describe('an unmanifested tool under "approve"', () => {
  it('is admitted as unclassified: every call needs an approval, then goes through', async () => {
    const h = await openHarness({ unmanifested: 'approve' });
    try {
      assert.deepEqual(h.rt.gateway?.status()[0]?.unclassified, ['big', 'echo']);
      const entry = h.rt.registry.current().find((t) => t.name === 'issues.echo');
      assert.equal(entry?.owner, 'upstream:issues (unclassified)');
      const asked = await h.call('t-u', 'issues.echo', { text: 'hi' });
      assert.equal(asked.error?.code, 'approval_required');
      assert.ok(asked.decision?.determining.includes('default.manifest-approval'), JSON.stringify(asked.decision));
      const ran = await h.approved('t-u', 'issues.echo', { text: 'hi' });
      assert.equal(ran.status, 'succeeded', JSON.stringify(ran.error));
      assert.deepEqual((ran.result as { structured: unknown }).structured, { echo: 'hi' });
    } finally {
      await h.done();
    }
  });
});

describe('an upstream shown the workspace read-only', () => {
  it('reads workspace files but writes none; secret files are masked; its data dir stays writable', async () => {
    // Present when the server starts: the scan at each start masks secret files (docs/gateway.md).
    const h = await openHarness({ workspace: 'read-only', files: { 'README.md': 'hello\n', '.env': 'API_KEY=secret-value\n' } });
    const server = createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const probe = async (path: string, write?: string): Promise<{ exists: boolean; content?: string; wrote?: boolean }> => {
        const r = await h.call('t-ws', 'issues.probe', { path, host: '127.0.0.1', port, ...(write ? { write } : {}) });
        assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
        return (r.result as { structured: { exists: boolean; content?: string; wrote?: boolean } }).structured;
      };
      const readme = await probe(join(h.workspace, 'README.md'), join(h.workspace, 'new.txt'));
      assert.equal(readme.content, 'hello\n');
      assert.equal(readme.wrote, false);
      assert.equal((await probe(join(h.workspace, '.env'))).content ?? '', '', 'the secret file reads empty');
      assert.equal((await probe(join(h.data, 'starts.log'), join(h.data, 'scratch.txt'))).wrote, true);
    } finally {
      server.close();
      await h.done();
    }
  });
});

describe('an upstream that cannot start', () => {
  it('refuses to open the runtime with upstream_unavailable (start_failed)', async () => {
    const dirs = tempDirs('tg-upstream-fail');
    try {
      await assert.rejects(
        createRuntime({ workspace: dirs.workspace, stateDir: dirs.state, upstreams: { broken: { command: '/bin/false' } } }),
        (e: unknown) => ToolgateError.isInstance(e) && e.code === 'upstream_unavailable' && (e.data as { reason: string }).reason === 'start_failed',
      );
    } finally {
      dirs.cleanup();
    }
  });
});
