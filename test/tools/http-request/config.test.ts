// What the configuration decides: a write to a granted host no destination declares is refused
// before anything is sent; a malformed connectors value is a start-up error, not a late surprise.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRuntime } from '../../../src/runtime/index.js';
import { StartupError } from '../../../src/protocol/index.js';
import { envelope, tempDirs } from '../../support/fixtures.js';
import { Provider } from './provider.js';
import { httpRuntime, PROVIDER_ADDRESS, SECRET, type HttpRuntime } from './harness.js';

const UNDECLARED = '127.0.0.3';

describe('http.request configuration', () => {
  let provider: Provider;
  let declared: Provider;
  let h: HttpRuntime;

  before(async () => {
    provider = await Provider.start(UNDECLARED);
    declared = await Provider.start(PROVIDER_ADDRESS);
    // Granted (hosts and private_addresses) but in no connectors.http destination.
    h = await httpRuntime({ grant: { tools: ['*'], effects: ['read', 'network', 'send'], hosts: ['127.0.0.2', UNDECLARED], private_addresses: ['127.0.0.2', UNDECLARED] } as never });
  });
  after(async () => {
    await h.done();
    await provider.close();
    await declared.close();
  });

  it('a POST to a granted host no destination declares is connector_not_configured (no_destination), nothing sent; a GET there is a read', async () => {
    const url = `http://${UNDECLARED}:${provider.port}/items`;
    const r = await h.rt.call(envelope('http.request', { method: 'POST', url, body: 'x' }, { idempotency_key: 'undeclared' }));
    assert.equal(r.status, 'denied');
    assert.equal(r.error?.code, 'connector_not_configured');
    assert.deepEqual(r.error?.data, { tool: 'http.request', url, host: UNDECLARED, method: 'POST', reason: 'no_destination' });
    assert.equal(provider.requests.length, 0);
    const get = await h.rt.call(envelope('http.request', { method: 'GET', url }));
    assert.equal(get.status, 'succeeded', JSON.stringify(get.error));
    assert.equal(provider.requests.at(-1)?.headers.authorization, undefined, 'no secret for an undeclared destination');
  });

  it("a redirect to another granted host is authorized again, recorded as a host change, and carries that host's secrets (none), not the first host's", async () => {
    declared.redirectTo = `http://${UNDECLARED}:${provider.port}/elsewhere`;
    const r = await h.rt.call(envelope('http.request', { method: 'GET', url: `http://${PROVIDER_ADDRESS}:${declared.port}/redirect` }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    const res = r.result as { body: string; redirects: { host_changed: boolean; to: string }[]; destination: { address: string } };
    assert.equal(res.body, 'hello /elsewhere\n');
    assert.deepEqual(res.redirects.map((x) => [x.host_changed, x.to]), [[true, `http://${UNDECLARED}:${provider.port}/elsewhere`]]);
    assert.equal(res.destination.address, UNDECLARED);
    assert.equal(declared.requests.at(-1)?.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(provider.requests.at(-1)?.headers.authorization, undefined, 'the first host\'s credential did not follow the redirect');
  });

  it('a malformed connectors.http is invalid_config at open', async () => {
    const d = tempDirs('tg-http-cfg');
    try {
      await assert.rejects(
        createRuntime({ workspace: d.workspace, stateDir: d.state, connectors: { http: { destinations: [{ host: 'x', methods: { POST: 'launch' as never } }] } } }),
        (e: unknown) => StartupError.isInstance(e) && e.code === 'invalid_config' && (e.data as unknown as { faults: { pointer: string }[] }).faults.some((f) => f.pointer === '/connectors/http/destinations/0/methods/POST'),
      );
    } finally {
      d.cleanup();
    }
  });
});
