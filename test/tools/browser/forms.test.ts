// Forms: typing and selecting stay in the page; a POST submission is a `send` effect that waits
// for approval, and until then (or from a plain click) the page cannot send anything but GETs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envelope } from '../../support/fixtures.js';
import { browserRuntime, html, Site, type BrowserRuntime } from './harness.js';

interface Snap {
  snapshot_id: string;
  elements: { locator: Record<string, string>; submits: { method: string } | null }[];
}

describe('browser: forms, approval, the write guard', () => {
  let site: Site;
  let h: BrowserRuntime;
  let tab: string;
  const snapshot = async (): Promise<Snap> => {
    const r = await h.rt.call(envelope('browser.snapshot', { tab }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    return r.result as Snap;
  };
  before(async () => {
    site = await Site.start({
      '/form': html(`<form method="post" action="/submit">
          <label>Query <input name="q"></label>
          <label>Color <select name="color"><option value="r">Red</option><option value="g">Green</option></select></label>
          <button type="submit">Send</button></form>
        <button onclick="fetch('/beacon', { method: 'POST', body: 'leak' }).catch(() => { document.getElementById('status').textContent = 'beacon blocked'; })">Beacon</button><p id="status">idle</p>`),
      '/submit': (_q, res, body) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>got ${body.replace(/[<>&]/g, '')}</h1>`),
      '/beacon': (_q, res) => res.writeHead(204).end(),
    });
    h = await browserRuntime();
    const open = await h.rt.call(envelope('browser.open', { url: `${site.origin}/form` }));
    assert.equal(open.status, 'succeeded', JSON.stringify(open.error));
    tab = (open.result as { page: { tab: string } }).page.tab;
  });
  after(async () => {
    await h.done();
    await site.close();
  });

  it('a script POST from a plain click is refused by the guard: the server sees 0 POSTs', async () => {
    const s = await snapshot();
    const r = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Beacon' } }));
    assert.equal(r.status, 'succeeded', JSON.stringify(r.error));
    // The fetch failed in the page (the guard aborted it): the page says so.
    let tree = '';
    for (let i = 0; i < 100 && !tree.includes('beacon blocked'); i++) {
      tree = ((await h.rt.call(envelope('browser.snapshot', { tab }))).result as { tree: string }).tree;
      if (!tree.includes('beacon blocked')) await new Promise((x) => setTimeout(x, 100));
    }
    assert.match(tree, /beacon blocked/);
    assert.equal(site.requests.filter((q) => q.method === 'POST').length, 0);
  });

  it('type and select fill the form; the POST submission needs approval, then the approved retry sends it', async () => {
    const s = await snapshot();
    const send = s.elements.find((e) => e.locator['name'] === 'Send');
    assert.deepEqual(send?.submits?.method, 'POST');
    const typed = await h.rt.call(envelope('browser.type', { snapshot_id: s.snapshot_id, target: { role: 'textbox', name: 'Query' }, text: 'hello world' }));
    assert.equal(typed.status, 'succeeded', JSON.stringify(typed.error));
    const chosen = await h.rt.call(envelope('browser.select', { snapshot_id: s.snapshot_id, target: { role: 'combobox', name: 'Color' }, values: ['g'] }));
    assert.equal(chosen.status, 'succeeded', JSON.stringify(chosen.error));

    const first = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Send' } }));
    assert.equal(first.error?.code, 'approval_required', JSON.stringify(first.error));
    assert.equal(first.normalized_action?.effect_class, 'send');
    assert.equal(site.requests.filter((q) => q.url === '/submit').length, 0, 'nothing sent before approval');

    await h.rt.approvals.approve(first.error?.data['approval_id'] as string, 'alice', Date.now());
    const retry = await h.rt.call(envelope('browser.click', { snapshot_id: s.snapshot_id, target: { role: 'button', name: 'Send' } }));
    assert.equal(retry.status, 'succeeded', JSON.stringify(retry.error));
    const posted = site.requests.filter((q) => q.url === '/submit');
    assert.equal(posted.length, 1);
    assert.equal(posted[0]?.body, 'q=hello+world&color=g');
    const r = retry.result as { before: { url: string }; after: { url: string; generation: number } };
    assert.match(r.after.url, /\/submit$/);
    assert.ok((retry.evidence as { screenshot: string | null }).screenshot);
  });
});
