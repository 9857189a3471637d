// Every request the page makes goes through the destination authorization of http.request: a
// redirect to the metadata address or to a loopback address the grant does not name is refused
// by the proxy, and nothing reaches the refused server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelope } from '../../support/fixtures.js';
import { browserRuntime, grant, HOST, html, POLICY, Site, type BrowserRuntime } from './harness.js';

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

describe('browser: a new origin needs a decision (grant ∧ Cedar)', () => {
  const OTHER = '127.0.0.4';
  let site: Site;
  let other: Site;
  let h: BrowserRuntime;
  before(async () => {
    other = await Site.start({ '/': html('<h1>forbidden origin</h1>') }, OTHER);
    site = await Site.start({
      '/': html(`<a href="${other.origin}/">Elsewhere</a><a href="/bounce">Bounce</a>`),
      '/bounce': (_q, res) => res.writeHead(302, { location: `${other.origin}/` }).end(),
    });
    // Both hosts granted; Cedar forbids the other one.
    h = await browserRuntime({
      grant: grant({ hosts: [HOST, OTHER], private_addresses: [HOST, OTHER] }) as never,
      policies: [{ name: 'browser.cedar', text: `${POLICY}\nforbid (principal, action, resource is Toolgate::Host) when { resource.host == "${OTHER}" };` }],
    });
  });
  after(async () => {
    await h.done();
    await site.close();
    await other.close();
  });

  it('a link to a granted host that Cedar forbids: the navigation is refused before it is sent (0 requests), the click is policy_denied', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    const tab = (open.result as { page: { tab: string } }).page.tab;
    const s = (await h.rt.call(envelope('browser.snapshot', { tab }))).result as { snapshot_id: string };
    const r = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'link', name: 'Elsewhere' } }));
    assert.equal(r.status, 'denied', JSON.stringify(r.result));
    assert.equal(r.error?.code, 'policy_denied');
    assert.equal(other.requests.length, 0);
    // Chromium shows its own error page for a blocked navigation; never the forbidden origin's.
    assert.ok(!(r.evidence as { page_after: { url: string } }).page_after.url.startsWith(other.origin));
  });

  it('a redirect to that host during a click: the hop is refused by the proxy (0 requests), the click denied and the tab blanked', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    const tab = (open.result as { page: { tab: string } }).page.tab;
    const s = (await h.rt.call(envelope('browser.snapshot', { tab }))).result as { snapshot_id: string };
    const r = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'link', name: 'Bounce' } }));
    assert.equal(r.status, 'denied', JSON.stringify(r.result));
    assert.equal(r.error?.code, 'policy_denied');
    assert.equal((r.evidence as { page_after: { url: string } }).page_after.url, 'about:blank');
    assert.equal(other.requests.length, 0, 'the redirect hop never reached the forbidden host');
  });

  it('browser.navigate to the forbidden host is denied by the pipeline before Chromium is asked', async () => {
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/` }));
    const tab = (open.result as { page: { tab: string } }).page.tab;
    const before = other.requests.length;
    const r = await h.rt.call(envelope('browser.navigate', { tab, url: `${other.origin}/` }));
    assert.equal(r.error?.code, 'policy_denied');
    assert.equal(other.requests.length, before);
  });
});

describe('browser: address classes behind a wildcard host grant', () => {
  let site: Site;
  let h: BrowserRuntime;
  before(async () => {
    site = await Site.start({ '/meta': (_q, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end() });
    h = await browserRuntime({ grant: grant({ hosts: ['*'], private_addresses: [HOST] }) as never });
  });
  after(async () => {
    await h.done();
    await site.close();
  });

  it('hosts ["*"] does not reach the metadata address: named directly it is refused for its address class, by redirect the proxy refuses it', async () => {
    const direct = await h.rt.call(envelope('browser.open', { url: 'http://169.254.169.254/latest/meta-data/' }));
    assert.equal(direct.error?.code, 'destination_refused');
    assert.equal(direct.error?.data['reason'], 'address_class');
    assert.equal(direct.error?.data['class'], 'metadata');
    const r = await h.rt.call(envelope('browser.open', { url: `${site.origin}/meta` }));
    assert.equal(r.status, 'denied');
    assert.equal(r.error?.code, 'destination_refused');
    assert.equal(r.error?.data['host'], '169.254.169.254');
    const refused = (r.evidence as { refused: { address: string | null }[] }).refused;
    assert.ok(refused.length > 0 && refused.every((c) => c.address === null), 'no address was connected to');
  });
});
