// http.request through runtime.call against a real provider on 127.0.0.2.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { envelope, filesUnder } from '../../support/fixtures.js';
import { Provider } from './provider.js';
import { httpRuntime, PROVIDER_ADDRESS, SECRET, type HttpRuntime } from './harness.js';

type Result = Record<string, unknown> & { status: number; body: string; headers: Record<string, string>; destination: Record<string, unknown> };

describe('http.request', () => {
  let provider: Provider;
  let h: HttpRuntime;
  const url = (path: string) => `http://${PROVIDER_ADDRESS}:${provider.port}${path}`;

  before(async () => {
    provider = await Provider.start(PROVIDER_ADDRESS);
    h = await httpRuntime();
  });
  after(async () => {
    await h.done();
    await provider.close();
  });

  it('a GET is a read: the answer, the provider request id, and where it went (URL normalized, address, no TLS name)', async () => {
    const r = await h.rt.call(envelope('http.request', { method: 'GET', url: `HTTP://${PROVIDER_ADDRESS}:${provider.port}/hello#frag` }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(r.normalized_action?.effect_class, 'read');
    assert.deepEqual(r.normalized_action?.resources, [{ kind: 'host', host: PROVIDER_ADDRESS, port: provider.port }]);
    const res = r.result as Result;
    assert.equal(res.status, 200);
    assert.equal(res.body, 'hello /hello\n');
    assert.equal(res.request_id, 'req-get-1');
    assert.equal(res.idempotency_key, null);
    assert.equal(res.headers['set-cookie'], undefined, 'Set-Cookie is not passed on');
    assert.deepEqual(res.destination, { url: url('/hello'), address: PROVIDER_ADDRESS, port: provider.port, servername: null, addresses: [{ address: PROVIDER_ADDRESS, class: 'loopback' }] });
    assert.equal(provider.requests.at(-1)?.headers.authorization, 'Bearer ' + SECRET, 'the configured secret is injected at the boundary');
  });

  it('a POST takes the class its destination declares (send), with an Idempotency-Key derived from the logical effect', async () => {
    const before = provider.writes;
    const env = envelope('http.request', { method: 'POST', url: url('/items'), headers: { 'content-type': 'application/json' }, body: '{"n":1}' }, { idempotency_key: 'post-1' });
    const r = await h.rt.call(env);
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(r.normalized_action?.effect_class, 'send');
    const res = r.result as Result;
    assert.equal(res.status, 201);
    assert.match(String(res.idempotency_key), /^tg-[0-9a-f]{40}$/);
    assert.equal(provider.requests.at(-1)?.headers['idempotency-key'], res.idempotency_key);
    assert.equal(provider.requests.at(-1)?.body, '{"n":1}');
    assert.equal((r.evidence as { provider: { request_id: string } }).provider.request_id, res.request_id);
    // The provider echoed the Authorization header in its body: redacted in the result.
    assert.ok(!JSON.stringify(r).includes(SECRET), 'no secret in the receipt');
    // The same logical effect again: the stored receipt, no second request.
    const again = await h.rt.call(env);
    assert.equal(again.replay, true);
    assert.equal(provider.writes, before + 1);
  });

  it('a write to a destination without that method declared is refused typed, nothing sent', async () => {
    const before = provider.requests.length;
    const r = await h.rt.call(envelope('http.request', { method: 'PATCH', url: url('/items/1'), body: 'x' }));
    assert.equal(r.status, 'denied');
    assert.equal(r.error?.code, 'connector_not_configured');
    assert.equal((r.error?.data as { reason: string }).reason, 'method_not_declared');
    assert.equal(provider.requests.length, before);
  });

  it('Authorization, Cookie, Host, Proxy-*, hop-by-hop and Idempotency-Key from the model are refused by name', async () => {
    const before = provider.requests.length;
    const r = await h.rt.call(
      envelope('http.request', {
        method: 'GET',
        url: url('/hello'),
        headers: { Authorization: 'Bearer mine', Cookie: 'a=b', Host: 'evil.test', 'Proxy-Authorization': 'x', Connection: 'close', 'Idempotency-Key': 'k', 'X-Fine': '1' },
      }),
    );
    assert.equal(r.error?.code, 'invalid_arguments');
    const pointers = (r.error?.data as { faults: { pointer: string }[] }).faults.map((f) => f.pointer).sort();
    assert.deepEqual(pointers, ['/headers/Authorization', '/headers/Connection', '/headers/Cookie', '/headers/Host', '/headers/Idempotency-Key', '/headers/Proxy-Authorization']);
    assert.equal(provider.requests.length, before);
  });

  it('a connection dropped after the provider took the effect is ambiguous; the retry asks the provider first (reconcile), finds the effect and answers with it: exactly one', async () => {
    provider.behaviour = 'drop';
    const env = envelope('http.request', { method: 'POST', url: url('/items'), body: 'drop-me' }, { idempotency_key: 'drop-1' });
    const writes = provider.writes;
    const effects = provider.effects.size;
    const lookups = () => provider.requests.filter((r) => r.method === 'GET' && r.url.startsWith('/effects')).length;
    const looked = lookups();
    let retry;
    try {
      const r = await h.rt.call(env);
      assert.equal(r.status, 'ambiguous', JSON.stringify(r.error));
      assert.equal(r.error?.code, 'ambiguous_effect');
      // The provider still drops every write: a blind re-send would be seen as a second write.
      retry = await h.rt.call(env);
    } finally {
      provider.behaviour = 'answer';
    }
    assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
    assert.equal((retry.evidence as { reconciliation?: { by: string } }).reconciliation?.by, 'reconcile');
    assert.equal(lookups(), looked + 1, 'the retry asked the declared query once');
    assert.equal(provider.writes, writes + 1, 'an ambiguous write is never sent again blindly');
    const report = await h.rt.reconcile();
    assert.equal(report.entries.filter((e) => e.tool === 'http.request').length, 0, 'nothing left for an operator');
    const replay = await h.rt.call(env);
    assert.equal(replay.status, 'succeeded');
    assert.equal(replay.replay, true);
    assert.equal(replay.receipt_id, retry.receipt_id);
    assert.equal(provider.writes, writes + 1, 'one POST in all');
    assert.equal(provider.effects.size, effects + 1, 'one effect in all');
  });

  it('a deadline that passes while the provider holds its answer: ambiguous, then reconcile finds the one effect', async () => {
    provider.behaviour = 'hold';
    const writes = provider.writes;
    const env = envelope('http.request', { method: 'POST', url: url('/items'), body: 'slow' }, { idempotency_key: 'hold-1', deadline: new Date(Date.now() + 3_000).toISOString() });
    try {
      const r = await h.rt.call(env);
      assert.equal(r.status, 'ambiguous', JSON.stringify(r.error));
      assert.equal(r.error?.code, 'ambiguous_effect');
    } finally {
      provider.behaviour = 'answer';
    }
    const report = await h.rt.reconcile();
    assert.equal(report.entries.find((e) => e.tool === 'http.request')?.settled, 'completed', JSON.stringify(report));
    assert.equal((await h.rt.call(env)).replay, true);
    assert.equal(provider.writes, writes + 1);
  });

  it('a dropped request the provider never took: reconcile says not sent, and the retry sends it once', async () => {
    // The provider drops before recording: a key it has never seen. Simulated by a lookup of a key it lacks.
    provider.behaviour = 'drop';
    const env = envelope('http.request', { method: 'POST', url: url('/items'), body: 'x' }, { idempotency_key: 'drop-2' });
    try {
      assert.equal((await h.rt.call(env)).status, 'ambiguous');
    } finally {
      provider.behaviour = 'answer';
    }
    // Forget the effect at the provider (as if it had never arrived).
    const key = provider.requests.at(-1)?.headers['idempotency-key'] as string;
    provider.effects.delete(key);
    const report = await h.rt.reconcile();
    assert.equal(report.entries.find((e) => e.tool === 'http.request')?.settled, 'released', JSON.stringify(report));
    const writes = provider.writes;
    const r = await h.rt.call(env);
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    assert.equal(provider.writes, writes + 1);
    assert.equal(provider.requests.at(-1)?.headers['idempotency-key'], key, 'the same key on the retry');
  });

  it('a connection that never opens sent nothing: execution_failed (connect_failed), released, the same key may run again', async () => {
    const closed = await Provider.start(PROVIDER_ADDRESS);
    const port = closed.port;
    await closed.close();
    const env = envelope('http.request', { method: 'POST', url: `http://${PROVIDER_ADDRESS}:${port}/items`, body: 'x' }, { idempotency_key: 'refused-1' });
    const r = await h.rt.call(env);
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.code, 'execution_failed');
    assert.equal((r.error?.data as { reason: string }).reason, 'connect_failed');
    const again = await h.rt.call(env);
    assert.notEqual(again.replay, true, 'released: the retry runs');
    assert.equal(again.error?.code, 'execution_failed');
  });

  it('a 202 is accepted_async with the operation id (Location), and a retry replays it', async () => {
    provider.behaviour = 'accept_async';
    const env = envelope('http.request', { method: 'POST', url: url('/deploys'), body: '{}' }, { idempotency_key: 'async-1' });
    try {
      const r = await h.rt.call(env);
      assert.equal(r.status, 'accepted_async', JSON.stringify(r.error));
      const res = r.result as Result;
      assert.match(String(res.operation_id), /^\/operations\/op-\d+$/);
      const writes = provider.writes;
      const again = await h.rt.call(env);
      assert.equal(again.replay, true);
      assert.equal((again.result as Result).operation_id, res.operation_id);
      assert.equal(provider.writes, writes);
    } finally {
      provider.behaviour = 'answer';
    }
  });

  it('a redirect is authorized again: to the ungranted 127.0.0.1 or the metadata address it is refused, never followed', async () => {
    for (const to of [`http://127.0.0.1:${provider.port}/hello`, 'http://169.254.169.254/latest/meta-data/', 'http://0xa9fea9fe/']) {
      provider.redirectTo = to;
      const r = await h.rt.call(envelope('http.request', { method: 'GET', url: url('/redirect') }));
      assert.equal(r.error?.code, 'destination_refused', `${to}: ${JSON.stringify(r.error)}`);
    }
    provider.redirectTo = '/hello';
    const ok = await h.rt.call(envelope('http.request', { method: 'GET', url: url('/redirect') }));
    assert.equal(ok.status, 'succeeded');
    const res = ok.result as Result & { redirects: { host_changed: boolean }[] };
    assert.equal(res.body, 'hello /hello\n');
    assert.deepEqual(res.redirects.map((x) => x.host_changed), [false]);
  });

  it('a redirect loop ends at 5 hops: limit_exceeded, not ambiguous', async () => {
    provider.redirectTo = '/redirect';
    try {
      const before = provider.requests.length;
      const r = await h.rt.call(envelope('http.request', { method: 'GET', url: url('/redirect') }));
      assert.equal(r.error?.code, 'limit_exceeded', JSON.stringify(r.error));
      assert.equal(provider.requests.length, before + 6);
    } finally {
      provider.redirectTo = '/hello';
    }
  });

  it('a write is never redirected (the 30x is its answer), and a GET is not when follow_redirects is false', async () => {
    const before = provider.requests.length;
    const post = await h.rt.call(envelope('http.request', { method: 'POST', url: url('/redirect'), body: 'x' }, { idempotency_key: 'post-redirect' }));
    assert.equal(post.status, 'succeeded', JSON.stringify(post.error));
    assert.equal((post.result as Result).status, 302);
    const get = await h.rt.call(envelope('http.request', { method: 'GET', url: url('/redirect'), follow_redirects: false }));
    assert.equal((get.result as Result).status, 302);
    assert.equal(provider.requests.length, before + 2);
  });

  it('the injected secret is in no receipt, effect record or artifact (raw bytes of the state dir)', async () => {
    for (const f of filesUnder(h.state)) {
      const bytes = readFileSync(f);
      assert.equal(bytes.includes(SECRET), false, `${f} holds the secret`);
    }
  });
});
