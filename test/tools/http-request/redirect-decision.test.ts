// A redirect to another origin is another resource: the grant may name both hosts, and still a
// Cedar policy that forbids the second, or asks for approval to reach it, stops the redirect
// before a byte goes there. Nothing is opened or counted for the hop: the model calls the new URL
// itself, and that call gets its own decision.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelope } from '../../support/fixtures.js';
import { Provider } from './provider.js';
import { httpRuntime, PROVIDER_ADDRESS, type HttpRuntime } from './harness.js';

const OTHER = '127.0.0.3';
const GRANT = { tools: ['*'], effects: ['read', 'network'], hosts: [PROVIDER_ADDRESS, OTHER], private_addresses: [PROVIDER_ADDRESS, OTHER] };

const FORBID_OTHER = `permit (principal, action, resource is Toolgate::Host);
permit (principal, action, resource is Toolgate::Tool);
@reason("the other host is off limits")
forbid (principal, action, resource is Toolgate::Host) when { resource.host == "${OTHER}" };`;

const APPROVE_OTHER = `permit (principal, action, resource is Toolgate::Host) when { resource.host != "${OTHER}" };
@approval("required")
@reason("the other host needs a person")
permit (principal, action, resource is Toolgate::Host) when { resource.host == "${OTHER}" };
permit (principal, action, resource is Toolgate::Tool);`;

describe('http.request: a redirect to another origin is decided again', () => {
  let first: Provider;
  let other: Provider;
  const runtimes: HttpRuntime[] = [];

  before(async () => {
    first = await Provider.start(PROVIDER_ADDRESS);
    other = await Provider.start(OTHER);
  });
  after(async () => {
    for (const h of runtimes) await h.done();
    await first.close();
    await other.close();
  });

  async function runtimeWith(policy: string): Promise<HttpRuntime> {
    const h = await httpRuntime({ grant: GRANT as never, policies: [{ name: 'redirect.cedar', text: policy }] });
    runtimes.push(h);
    return h;
  }

  it('a Cedar forbid on the target host: policy_denied, not followed, the other host saw nothing; a direct call there is denied the same way', async () => {
    const h = await runtimeWith(FORBID_OTHER);
    const target = `http://${OTHER}:${other.port}/elsewhere`;
    first.redirectTo = target;
    const before = other.requests.length;
    const r = await h.rt.call(envelope('http.request', { method: 'GET', url: `http://${PROVIDER_ADDRESS}:${first.port}/redirect` }));
    assert.equal(r.status, 'denied', JSON.stringify(r.error));
    assert.equal(r.error?.code, 'policy_denied');
    const data = r.error?.data as { redirect_url: string; reasons: string[] };
    assert.equal(data.redirect_url, target);
    assert.ok(data.reasons.some((x) => x.includes('off limits')), JSON.stringify(data));
    assert.equal(other.requests.length, before, 'not one request reached the forbidden host');
    assert.equal((r.evidence as { refused_redirect: { to: string } }).refused_redirect.to, target);

    const direct = await h.rt.call(envelope('http.request', { method: 'GET', url: target }));
    assert.equal(direct.error?.code, 'policy_denied');
    assert.equal(other.requests.length, before);
  });

  it('an approval policy on the target host: approval_required, not followed, and no approval request is opened for the hop', async () => {
    const h = await runtimeWith(APPROVE_OTHER);
    const target = `http://${OTHER}:${other.port}/elsewhere`;
    first.redirectTo = target;
    const before = other.requests.length;
    const r = await h.rt.call(envelope('http.request', { method: 'GET', url: `http://${PROVIDER_ADDRESS}:${first.port}/redirect` }));
    assert.equal(r.status, 'denied', JSON.stringify(r.error));
    assert.equal(r.error?.code, 'approval_required');
    assert.equal((r.error?.data as { approval_id?: string }).approval_id, undefined, 'the hop opens no approval: it could never match a call');
    assert.equal(other.requests.length, before);
    assert.deepEqual(await h.rt.approvals.list({ status: 'pending' }, Date.now()), []);

    // The model asks for the new URL itself: that call opens its own approval.
    const direct = await h.rt.call(envelope('http.request', { method: 'GET', url: target }));
    assert.equal(direct.error?.code, 'approval_required');
    assert.equal((await h.rt.approvals.list({ status: 'pending' }, Date.now())).length, 1);
    assert.equal(other.requests.length, before);
  });

  it('a redirect on the same origin is not decided again, and one to an allowed origin is followed', async () => {
    const h = await runtimeWith(APPROVE_OTHER);
    first.redirectTo = '/hello';
    const same = await h.rt.call(envelope('http.request', { method: 'GET', url: `http://${PROVIDER_ADDRESS}:${first.port}/redirect` }));
    assert.equal(same.status, 'succeeded', JSON.stringify(same.error));

    const allowed = await runtimeWith(FORBID_OTHER.replace(`resource.host == "${OTHER}"`, 'resource.host == "nothing.invalid"'));
    first.redirectTo = `http://${OTHER}:${other.port}/elsewhere`;
    const r = await allowed.rt.call(envelope('http.request', { method: 'GET', url: `http://${PROVIDER_ADDRESS}:${first.port}/redirect` }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal((r.result as { redirects: { host_changed: boolean }[] }).redirects[0]?.host_changed, true);
  });
});
