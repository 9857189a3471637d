// An approval decided from the web view is refused once it has expired, like one decided from
// the CLI: nothing is decided, the call stays refused, and the page no longer lists it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_POLICY_SOURCE } from '../../src/policy/index.js';
import { createRuntime } from '../../src/runtime/index.js';
import { serveUi } from '../../src/ui/index.js';
import { envelope, tempDirs } from '../support/fixtures.js';
import { waitFor } from '../support/processes.js';
import { UI_POLICY } from './seed.js';

const TOKEN = 'expiry-test-token-0123456789';

test('an expired approval request cannot be approved from the web view: 409, nothing decided, no longer listed, the call still refused', async () => {
  const d = tempDirs('tg-ui-expiry');
  const rt = await createRuntime({ workspace: d.workspace, stateDir: d.state, policies: [DEFAULT_POLICY_SOURCE, { name: 'ui.cedar', text: UI_POLICY }], approvalTtlMs: 1_000 });
  const ui = await serveUi(rt, { port: 0, token: TOKEN });
  try {
    const call = envelope('fs.write', { path: 'deploy/prod.json', content: '{}\n', create_parents: true }, { task_id: 'expiry' });
    const first = await rt.call(call);
    assert.equal(first.error?.code, 'approval_required');
    const id = first.error?.data['approval_id'] as string;
    const record = await rt.approvals.get(id);
    assert.ok(record);
    const get = async (): Promise<{ approvals: { id: string }[] }> =>
      (await (await fetch(`${ui.url}api/overview`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { approvals: { id: string }[] };
    assert.ok(await waitFor(() => Date.now() > record.expires_at + 50, 30_000));
    assert.deepEqual((await get()).approvals, [], 'an expired request is not offered');
    const res = await fetch(`${ui.url}api/approvals/${id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve', action_digest: record.action_digest }),
    });
    assert.equal(res.status, 409);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'precondition_failed');
    assert.equal((await rt.approvals.get(id))?.status, 'pending');
    assert.equal((await rt.call(call)).error?.code, 'approval_required', 'the call is still refused (a new request)');
  } finally {
    await ui.close();
    await rt.close();
    d.cleanup();
  }
});
