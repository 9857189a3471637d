// Every request the page makes goes through the destination authorization of http.request: a
// redirect to the metadata address or to a loopback address the grant does not name is refused
// by the proxy, and nothing reaches the refused server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelope } from '../../support/fixtures.js';
import { browserRuntime, html, Site, type BrowserRuntime } from './harness.js';

describe('browser: destinations', () => {
  let site: Site;
  let hidden: Site;
  let h: BrowserRuntime;
  before(async () => {
    hidden = await Site.start({ '/': html('<h1>secret internal page</h1>') }, '127.0.0.3');
    site = await Site.start({
      '/': html('<h1>Home</h1>'),
      '/meta': (_q, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
      '/internal': (_q, res) => res.writeHead(302, { location: `${hidden.origin}/` }).end(),
    });
    h = await browserRuntime();
  });
  after(async () => {
    await h.done();
    await site.close();
    await hidden.close();
  });

  it('a redirect to 169.254.169.254 is refused destination_refused (metadata), nothing connects there', async () => {
    const r = await h.rt.call(envelope('browser.open', { url: `${site.origin}/meta` }));
    assert.equal(r.status, 'denied', JSON.stringify(r.result));
    assert.equal(r.error?.code, 'destination_refused');
    const refused = (r.evidence as { refused: { host: string; decision: string; reason: string; address: string | null }[] }).refused;
    assert.ok(refused.some((c) => c.host === '169.254.169.254' && c.decision === 'refused' && (c.reason === 'host_not_granted' || c.reason === 'address_class')), JSON.stringify(refused));
    assert.ok(refused.every((c) => c.address === null), 'no address was connected to');
  });

  it('a redirect to a loopback address the grant does not name is refused; that server sees 0 requests', async () => {
    const r = await h.rt.call(envelope('browser.open', { url: `${site.origin}/internal` }));
    assert.equal(r.status, 'denied');
    assert.equal(r.error?.code, 'destination_refused');
    assert.equal(hidden.requests.length, 0);
  });

  it('a URL naming the metadata address directly is refused before Chromium is asked', async () => {
    const r = await h.rt.call(envelope('browser.open', { url: 'http://169.254.169.254/latest/meta-data/' }));
    assert.equal(r.error?.code, 'destination_refused');
    assert.equal(r.error?.data['reason'], 'host_not_granted');
  });
});
